import { effectiveDeadline } from '../../domain/deadlines.js';
import { JobNotFoundError } from '../../domain/errors.js';
import { toIso } from '../../domain/time.js';
import type { ManagerDeps } from '../manager-deps.js';
import { readHistory, timedEntries } from './history-answer.js';

/** `GET /jobs/{jobId}/history` on a region manager: the job's timing as it stands, and its decisions in time order. */
export async function getJobHistory(deps: ManagerDeps, jobId: string) {
  const [job, recorded] = await Promise.all([deps.jobs.getJob(jobId), readHistory(deps.history, jobId)]);
  if (!job) throw new JobNotFoundError(jobId);
  const t = job.tracking;
  return {
    jobId,
    source: job.region,
    status: job.status,
    strategy: t.strategy,
    ...(t.gateRegion !== undefined ? { gateRegion: t.gateRegion } : {}),
    fenceToken: t.fenceToken,
    stuckThresholdSeconds: t.stuckThresholdSeconds,
    lastProgressAt: toIso(t.lastProgressAt),
    ...timedEntries(
      {
        startedAt: t.startedAt,
        timeoutSeconds: t.timeoutSeconds,
        effectiveDeadlineAt: effectiveDeadline(t),
        ...(t.timeoutReason !== undefined ? { timeoutReason: t.timeoutReason } : {}),
        ...(job.finishedAt !== undefined ? { finishedAt: job.finishedAt } : {}),
      },
      recorded,
      deps.clock.now(),
    ),
  };
}
