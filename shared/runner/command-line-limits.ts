/**
 * What exec(2) refuses to pass to a command: an item filled into a template step can make its command
 * line too long, or put a NUL in it. spawn then fails (E2BIG, or Node's own refusal of a NUL), and
 * the same item fails that way on every attempt, so the runner names the reason instead.
 */

/** Linux's limit on one argument or one environment entry, its terminating NUL included (MAX_ARG_STRLEN: 32 pages). */
export const MAX_ARG_STRLEN_BYTES = 131_072;

const HOW_TO_FIX =
  "Put less of the item on the command line: name a field of it (${item.<field>}) instead of ${item}, " +
  'or have the command read the whole item from $VIGIL_ITEM_INPUT (JSON).';

const bytesOf = (text: string): number => Buffer.byteLength(text, 'utf8') + 1;
const entriesOf = (env: NodeJS.ProcessEnv): string[] => Object.entries(env).flatMap(([name, value]) => (value === undefined ? [] : [`${name}=${value}`]));

/** Why exec cannot be given `argv` and `env`, found before spawning; undefined when nothing is known to stop it. */
export function commandLineProblem(argv: readonly string[], env: NodeJS.ProcessEnv, platform: NodeJS.Platform = process.platform): string | undefined {
  if (argv.some((arg) => arg.includes('\0'))) return `an argument holds a NUL character (\\u0000), which no command-line argument can carry. ${HOW_TO_FIX}`;
  // Other systems limit only the total (ARG_MAX), which spawn's E2BIG reports.
  if (platform !== 'linux') return undefined;
  const longestArg = Math.max(0, ...argv.map(bytesOf));
  if (longestArg > MAX_ARG_STRLEN_BYTES) {
    return `one argument is ${longestArg} bytes with the item filled in, past Linux's limit of ${MAX_ARG_STRLEN_BYTES} bytes for a single argument (MAX_ARG_STRLEN). ${HOW_TO_FIX}`;
  }
  const longEntry = entriesOf(env).find((entry) => bytesOf(entry) > MAX_ARG_STRLEN_BYTES);
  if (longEntry !== undefined) {
    const name = longEntry.slice(0, longEntry.indexOf('='));
    return `the environment variable ${name} is ${bytesOf(longEntry)} bytes, past Linux's limit of ${MAX_ARG_STRLEN_BYTES} bytes for a single entry (MAX_ARG_STRLEN). Unset or shorten it where the runner starts.`;
  }
  return undefined;
}

/** spawn's failure when arguments and environment together are past the system's limit. */
export const isArgumentListTooLong = (error: unknown): boolean => error instanceof Error && (error as { code?: unknown }).code === 'E2BIG';

/** The reason for an E2BIG: what the command line and environment take together. */
export function argumentListTooLongReason(argv: readonly string[], env: NodeJS.ProcessEnv): string {
  const argBytes = argv.reduce((sum, arg) => sum + bytesOf(arg), 0);
  const envBytes = entriesOf(env).reduce((sum, entry) => sum + bytesOf(entry), 0);
  return (
    `its ${argv.length} arguments (${argBytes} bytes with the item filled in) and its environment (${envBytes} bytes) ` +
    `are past this system's limit for them together (ARG_MAX; \`getconf ARG_MAX\` tells it). ${HOW_TO_FIX}`
  );
}
