import type { Decision } from '../effects.js';
import type { EpochMs } from '../time.js';
import type { JobFinalStatus } from '../../events/job-final-status.js';
import { decideCancel } from './cancel-gate-job.js';
import { sendDecision } from './decision-events.js';
import { isDecided, type GateJob } from './gate-job.js';
import type { GatePolicy } from './gate-policy.js';

export type RegionCancelInput = Pick<JobFinalStatus, 'region' | 'cancelReason' | 'cancelEverywhere'>;

/**
 * A region's CANCELLED final status. Before the gate decided, it can only come from a call to that
 * region's `POST /jobs/{jobId}/cancel`: the job is one job across its regions, so it is cancelled in the
 * others too, as a cancel through the gate, with the region's reason (as one region's local timeout
 * times the job out everywhere, seed 000 Part 5). Once decided, `ifDecided` says what it changes.
 *
 * A region that asks (`cancelEverywhere`) is answered with the decision, whatever it is: it re-sends
 * its cancel until a decision arrives (own-cancel-to-gate.ts). Only a message that asks is answered, and
 * the region stops asking once answered, so the two never answer each other forever.
 */
export function onRegionCancelled(
  job: GateJob,
  final: RegionCancelInput,
  now: EpochMs,
  policy: GatePolicy,
  ifDecided: (job: GateJob) => Decision<GateJob>,
): Decision<GateJob> {
  const { region, cancelReason } = final;
  const decided = isDecided(job) ? ifDecided(job) : decideCancel(job, { ...(cancelReason !== undefined ? { reason: cancelReason } : {}), region }, now, policy);
  if (final.cancelEverywhere !== true || !isDecided(decided.state)) return decided;
  return { ...decided, effects: [...decided.effects, ...sendDecision(decided.state, [region])] };
}
