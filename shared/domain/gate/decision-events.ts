import { publishResent, type Effect } from '../effects.js';
import { toIso } from '../time.js';
import { JobGlobalCancel } from '../../events/job-global-cancel.js';
import { JobGlobalTimeout } from '../../events/job-global-timeout.js';
import type { BusEvent } from '../../ports/event-bus.js';
import type { GateJob } from './gate-job.js';

/**
 * The gate's decision addressed to one region. A global timeout carries the fence token the gate
 * last heard from that region, so a manager that moved on since can tell it is stale and correct
 * the gate (seed 000 Scenario 3). A cancel carries none: it is the user's word, not a leader's.
 */
export function decisionEvent(job: GateJob, region: string): BusEvent {
  if (job.decidedAt === undefined) throw new Error(`gate job ${job.jobId} has no decision to send`);
  if (job.cancelRequested !== undefined) {
    const { reason } = job.cancelRequested;
    return JobGlobalCancel.build({ jobId: job.jobId, region, ...(reason !== undefined ? { reason } : {}) });
  }
  return JobGlobalTimeout.build({
    jobId: job.jobId,
    region,
    reason: job.timeoutReason ?? 'timeout',
    timedOutAt: toIso(job.decidedAt),
    fenceToken: job.dcFenceToken[region] ?? 0,
  });
}

export const sendDecision = (job: GateJob, regions: readonly string[]): Effect[] =>
  regions.map((region) => publishResent(decisionEvent(job, region)));
