/**
 * A reader that goes away before the command is done (`vigil watch JOB | head -1`, or stderr piped
 * to a reader that closed it): the next write fails with EPIPE. Node ignores SIGPIPE, so that error
 * would escape as a stack trace and exit 1, the contract's "the job failed". It is taken as the
 * reader's "enough" instead: what is left to print there is dropped, and a command that prints
 * until told to stop (watch) asks `readerGone`.
 */
let gone = false;

/** True once stdout's reader went away. */
export const readerGone = (): boolean => gone;

export function dropOutputOnceReadersGo(): void {
  process.stdout.on('error', (error: NodeJS.ErrnoException) => {
    if (error.code !== 'EPIPE') throw error;
    gone = true;
  });
  // Messages (errors, the run's reports) have nowhere else to go: they are dropped, and the command
  // ends with its own exit code.
  process.stderr.on('error', (error: NodeJS.ErrnoException) => {
    if (error.code !== 'EPIPE') throw error;
  });
}
