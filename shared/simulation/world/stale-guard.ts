import { effectiveDeadline } from '../../domain/deadlines.js';
import type { Job } from '../../domain/job.js';
import type { World } from './world.js';

/**
 * Runs an input that carries a fence token; when that token is older than the job's, the input is
 * stale and must change nothing that matters: status, deadline, fence.
 */
export async function withStaleFenceCheck(
  world: World,
  read: (jobId: string) => Promise<Job | undefined>,
  input: { jobId: string; fenceToken?: number; what: string },
  run: () => Promise<void>,
): Promise<void> {
  const before = input.fenceToken === undefined ? undefined : await read(input.jobId);
  if (!before || input.fenceToken === undefined || input.fenceToken >= before.tracking.fenceToken) return run();
  try {
    await run();
  } finally {
    const after = await read(input.jobId);
    const moved =
      after &&
      (after.status !== before.status ||
        effectiveDeadline(after.tracking) !== effectiveDeadline(before.tracking) ||
        after.tracking.fenceToken !== before.tracking.fenceToken);
    if (moved) {
      world.staleChanges.push({
        jobId: input.jobId,
        message: `${input.what} with fence ${input.fenceToken} < ${before.tracking.fenceToken} changed the job: ${before.status} → ${after.status}`,
      });
    }
  }
}
