import { JobNotFoundError } from '../../domain/errors.js';
import { gateJobStatus } from '../../domain/gate/gate-job-status.js';
import { globalDeadline } from '../../domain/gate/global-deadline.js';
import { secondsToMs, toIso } from '../../domain/time.js';
import type { GateDeps } from '../gate/gate-deps.js';
import { HISTORY_READ_LIMIT, historyEntryView, sortedByTime } from './history-views.js';

/**
 * `GET /jobs/{jobId}/history` on the gate: what the gate heard and decided (reports per region, its
 * global decision, each region's confirmation). Each region's own history is on that region's manager.
 */
export async function getGateJobHistory(deps: GateDeps, jobId: string) {
  const [job, recorded] = await Promise.all([
    deps.gates.get(jobId),
    deps.history ? deps.history.read(jobId, HISTORY_READ_LIMIT) : { entries: [], truncated: false },
  ]);
  if (!job) throw new JobNotFoundError(jobId);
  const originalDeadline = job.submittedAt + secondsToMs(job.timeoutSeconds);
  const entries = sortedByTime([{ kind: 'submitted' as const, at: job.submittedAt, deadlineAt: originalDeadline }, ...recorded.entries]);
  return {
    jobId,
    source: 'gate',
    status: gateJobStatus(job),
    strategy: 'gate_coordinated',
    regions: job.targetRegions,
    startedAt: toIso(job.submittedAt),
    timeoutSeconds: job.timeoutSeconds,
    originalDeadlineAt: toIso(originalDeadline),
    effectiveDeadlineAt: toIso(globalDeadline(job)),
    ...(job.timeoutReason !== undefined ? { timeoutReason: job.timeoutReason } : {}),
    ...(job.decidedAt !== undefined ? { finishedAt: toIso(job.decidedAt) } : {}),
    now: toIso(deps.clock.now()),
    truncated: recorded.truncated,
    entries: entries.map(historyEntryView),
  };
}
