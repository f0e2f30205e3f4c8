/** The most of an upstream answer the console reads: Lambda answers at most 6 MB, so a Vigil never sends more. */
export const MAX_FORWARDED_ANSWER_BYTES = 8 * 1024 * 1024;

/** An upstream answer past `MAX_FORWARDED_ANSWER_BYTES`: not Vigil's (a squatter on its port, a proxy's stream). */
export class AnswerTooLargeError extends Error {
  readonly code = 'upstream_answer_too_large';

  constructor() {
    super(`the answer passed ${MAX_FORWARDED_ANSWER_BYTES / 1024 / 1024} MB, more than any Vigil answers`);
    this.name = 'AnswerTooLargeError';
  }
}

/** The answer's body as text, refused once past the bound: an endless stream must not fill the console's memory. */
export async function boundedText(response: Response): Promise<string> {
  if (!response.body) return '';
  const chunks: Uint8Array[] = [];
  let bytes = 0;
  for await (const chunk of response.body as unknown as AsyncIterable<Uint8Array>) {
    bytes += chunk.byteLength;
    if (bytes > MAX_FORWARDED_ANSWER_BYTES) {
      await response.body.cancel().catch(() => undefined);
      throw new AnswerTooLargeError();
    }
    chunks.push(chunk);
  }
  return Buffer.concat(chunks).toString('utf8');
}
