/** Prints `data` as JSON with --json, else the human lines. */
export function print(json: boolean | undefined, data: unknown, lines: () => string[]): void {
  process.stdout.write(json ? `${JSON.stringify(data, null, 2)}\n` : `${lines().join('\n')}\n`);
}
