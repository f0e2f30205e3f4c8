/** The `vigil` command's exit codes (README, "The vigil command"). */
export const ExitCode = {
  ok: 0,
  failed: 1,
  usage: 2,
  timedOutOrCancelled: 3,
  unreachable: 4,
} as const;
export type ExitCode = (typeof ExitCode)[keyof typeof ExitCode];

/** Bad usage or bad input: exit 2 with a message that says how to fix it. */
export class UsageError extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'UsageError';
  }
}

/** The exit code for a job's status (`status` and `watch`). */
export function exitCodeOfStatus(status: string): ExitCode {
  if (status === 'FAILED') return ExitCode.failed;
  if (status === 'TIMED_OUT' || status === 'CANCELLED') return ExitCode.timedOutOrCancelled;
  return ExitCode.ok;
}
