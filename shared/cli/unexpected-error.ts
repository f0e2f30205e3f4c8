import { ExitCode } from './exit-codes.js';

/** Set to 1 for the stack trace of an unexpected error, after its one line. */
const DEBUG_ENV = 'VIGIL_DEBUG';

/** The longest part of the line the error's own message takes. */
const MAX_WHAT_CHARS = 500;

const oneLine = (error: unknown): string => {
  const text = error instanceof Error ? (error.name === 'Error' ? error.message : `${error.name}: ${error.message}`) : String(error);
  const flat = text.replace(/\s+/g, ' ').trim();
  return flat.length > MAX_WHAT_CHARS ? `${flat.slice(0, MAX_WHAT_CHARS)}…` : flat;
};

/**
 * An error no command expects (a bug, or this machine: a full disk, a TMPDIR that is no folder),
 * said as such, in one line. Left to Node, it exits 1, the contract's "the job/item failed", which a
 * script would take as the outcome of its job. The contract's codes are 0–4 only; of those, 2 (bad
 * usage or bad input, with a message saying how to fix it) is the one that sends a human to read the message.
 */
export function reportUnexpected(error: unknown): ExitCode {
  const trace = process.env[DEBUG_ENV] === '1' && error instanceof Error && error.stack ? `\n${error.stack}` : '';
  console.error(
    `vigil: unexpected error, the command failed (this is not the outcome of any job or item): ${oneLine(error)}. ` +
      `If it is not about this machine (a file, a folder, a limit), it is a bug in vigil: run it again with ${DEBUG_ENV}=1 and report it with the trace.${trace}`,
  );
  return ExitCode.usage;
}

/**
 * What escapes every command (a timer's callback that throws, a promise nobody awaits that
 * rejects) ends the process the same way: exit 2 with one line, never Node's own exit 1 and trace.
 * The process exits at once: what failed may have left timers running (an attempt's heartbeats).
 */
export function exitOnUnexpectedErrors(): void {
  const fail = (error: unknown) => process.exit(reportUnexpected(error));
  process.on('uncaughtException', fail);
  process.on('unhandledRejection', fail);
}
