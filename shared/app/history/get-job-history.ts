import { effectiveDeadline } from '../../domain/deadlines.js';
import { JobNotFoundError } from '../../domain/errors.js';
import { secondsToMs, toIso } from '../../domain/time.js';
import type { ManagerDeps } from '../manager-deps.js';
import { HISTORY_READ_LIMIT, historyEntryView, sortedByTime } from './history-views.js';

/**
 * `GET /jobs/{jobId}/history` on a region manager: the job's timing as it stands, and its decisions
 * in time order. The submission is read off the job itself; everything later from the recorded entries.
 */
export async function getJobHistory(deps: ManagerDeps, jobId: string) {
  const [job, recorded] = await Promise.all([deps.jobs.getJob(jobId), deps.history ? deps.history.read(jobId, HISTORY_READ_LIMIT) : { entries: [], truncated: false }]);
  if (!job) throw new JobNotFoundError(jobId);
  const t = job.tracking;
  const originalDeadline = t.startedAt + secondsToMs(t.timeoutSeconds);
  const entries = sortedByTime([{ kind: 'submitted' as const, at: t.startedAt, deadlineAt: originalDeadline }, ...recorded.entries]);
  return {
    jobId,
    source: job.region,
    status: job.status,
    strategy: t.strategy,
    ...(t.gateRegion !== undefined ? { gateRegion: t.gateRegion } : {}),
    fenceToken: t.fenceToken,
    startedAt: toIso(t.startedAt),
    timeoutSeconds: t.timeoutSeconds,
    stuckThresholdSeconds: t.stuckThresholdSeconds,
    lastProgressAt: toIso(t.lastProgressAt),
    originalDeadlineAt: toIso(originalDeadline),
    effectiveDeadlineAt: toIso(effectiveDeadline(t)),
    ...(t.timeoutReason !== undefined ? { timeoutReason: t.timeoutReason } : {}),
    ...(job.finishedAt !== undefined ? { finishedAt: toIso(job.finishedAt) } : {}),
    now: toIso(deps.clock.now()),
    truncated: recorded.truncated,
    entries: entries.map(historyEntryView),
  };
}
