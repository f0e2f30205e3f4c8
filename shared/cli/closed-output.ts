/**
 * A reader that goes away before the command is done (`vigil watch JOB | head -1`): the next write
 * to stdout fails with EPIPE. Node ignores SIGPIPE, so that error would escape as a stack trace and
 * exit 1, the contract's "the job failed". It is taken as the reader's "enough" instead: what is
 * left to print is dropped, and a command that prints until told to stop (watch) asks `readerGone`.
 */
let gone = false;

export const readerGone = (): boolean => gone;

export function dropOutputOnceReaderGoes(out: NodeJS.WriteStream = process.stdout): void {
  out.on('error', (error: NodeJS.ErrnoException) => {
    if (error.code !== 'EPIPE') throw error;
    gone = true;
  });
}
