import { metric, type Decision } from '../effects.js';
import type { EpochMs } from '../time.js';
import { broadcastDecision } from './broadcast-decision.js';
import type { GateJob } from './gate-job.js';
import type { GatePolicy } from './gate-policy.js';
import { withNextDecisionFence } from './gate-timer.js';
import { timeoutReasonText, type GateTimeoutCause } from './gate-timeout-cause.js';

/** Seed 000 Part 5 "Declare Global Timeout": decided once; callers check `isDecided` first. */
export function declareGlobalTimeout(job: GateJob, cause: GateTimeoutCause, now: EpochMs, policy: GatePolicy): Decision<GateJob> {
  const decided = withNextDecisionFence(job);
  const declared: GateJob = { ...decided.job, globallyTimedOut: true, timeoutReason: timeoutReasonText(cause), decidedAt: now };
  return broadcastDecision(declared, now, policy, [metric('GlobalTimeoutDeclared', { cause: cause.kind }), ...decided.effects]);
}
