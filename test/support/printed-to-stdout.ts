import { vi } from 'vitest';

/** What `act` prints to stdout (Powertools prints EMF there through its own Console), kept from the test's output. */
export async function printedBy(act: () => unknown): Promise<string> {
  const chunks: string[] = [];
  const write = vi.spyOn(process.stdout, 'write').mockImplementation((chunk: string | Uint8Array) => (chunks.push(String(chunk)), true));
  try {
    await act();
  } finally {
    write.mockRestore();
  }
  return chunks.join('');
}
