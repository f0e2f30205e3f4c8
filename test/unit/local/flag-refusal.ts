import { parseFlags } from '../../../shared/local/cli-flags.js';

/** The first line of what `npm start` says of these flags; a test failure if it takes them. */
export function flagRefusal(argv: string[]): string {
  try {
    parseFlags(argv);
  } catch (error) {
    return (error as Error).message.split('\n')[0] ?? '';
  }
  throw new Error(`${argv.join(' ')} was accepted`);
}
