import { gateJobStatus } from '../../domain/gate/gate-job-status.js';
import { globalDeadline } from '../../domain/gate/global-deadline.js';
import { DEFAULT_TENANT } from '../../domain/tenant.js';
import type { GateDeps } from '../gate/gate-deps.js';
import { ownJob } from '../own-job.js';
import { readHistory, timedEntries } from './history-answer.js';

/**
 * `GET /jobs/{jobId}/history` on the gate: what the gate heard and decided (reports per region, its
 * global decision, each region's confirmation). Each region's own history is on that region's manager.
 */
export async function getGateJobHistory(deps: GateDeps, jobId: string, tenant: string = DEFAULT_TENANT) {
  const [stored, recorded] = await Promise.all([deps.gates.get(jobId), readHistory(deps.history, jobId)]);
  const job = ownJob(stored, tenant, jobId);
  return {
    jobId,
    source: 'gate',
    status: gateJobStatus(job),
    strategy: 'gate_coordinated',
    regions: job.targetRegions,
    ...timedEntries(
      {
        startedAt: job.submittedAt,
        timeoutSeconds: job.timeoutSeconds,
        effectiveDeadlineAt: globalDeadline(job),
        ...(job.timeoutReason !== undefined ? { timeoutReason: job.timeoutReason } : {}),
        ...(job.decidedAt !== undefined ? { finishedAt: job.decidedAt } : {}),
      },
      recorded,
      deps.clock.now(),
    ),
  };
}
