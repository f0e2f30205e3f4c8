import { ExitCode } from './exit-codes.js';

/**
 * An error no command expects (a bug, or this machine: a full disk, a TMPDIR that is no folder),
 * said as such. Left to Node, it exits 1, the contract's "the job/item failed", which a script would
 * take as the outcome of its job. The contract's codes are 0–4 only; of those, 2 (bad usage or bad
 * input, with a message saying how to fix it) is the one that sends a human to read the message.
 */
export function reportUnexpected(error: unknown): ExitCode {
  const what = error instanceof Error ? error.message : String(error);
  const trace = error instanceof Error && error.stack ? `\n${error.stack}` : '';
  console.error(
    `vigil: unexpected error, the command failed (this is not the outcome of any job or item): ${what}\n` +
      `If it is not about this machine (a file, a folder, a limit), it is a bug in vigil: please report it with the trace below.${trace}`,
  );
  return ExitCode.usage;
}
