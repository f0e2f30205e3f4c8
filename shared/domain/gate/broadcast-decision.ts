import type { Decision, Effect } from '../effects.js';
import { secondsToMs, type EpochMs } from '../time.js';
import { sendDecision } from './decision-events.js';
import { allRegionsFinal, regionsNotFinal, type GateJob } from './gate-job.js';
import type { GatePolicy } from './gate-policy.js';
import { armGateTimer, disarmGateTimer } from './gate-timer.js';

/**
 * Sends the decision to every region that has not reported a final status and wakes up again after
 * `rebroadcastSeconds` to re-send it: delivery may drop it, and only a region's final status says it
 * arrived (seed 000 Part 5 "Broadcast JobGlobalTimeout to ALL DCs", made reliable).
 */
export function broadcastDecision(job: GateJob, now: EpochMs, policy: GatePolicy, extra: Effect[] = []): Decision<GateJob> {
  if (allRegionsFinal(job)) {
    const done = disarmGateTimer(job);
    return { state: done.job, effects: [...extra, ...done.effects] };
  }
  const armed = armGateTimer(job, now + secondsToMs(policy.rebroadcastSeconds), now);
  return { state: armed.job, effects: [...extra, ...sendDecision(job, regionsNotFinal(job)), ...armed.effects] };
}
