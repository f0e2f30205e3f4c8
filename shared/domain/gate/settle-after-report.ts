import type { Decision } from '../effects.js';
import type { EpochMs } from '../time.js';
import { declareGlobalTimeout } from './declare-global-timeout.js';
import { allRegionsFinal, isDecided, type GateJob } from './gate-job.js';
import type { GatePolicy } from './gate-policy.js';
import { disarmGateTimer } from './gate-timer.js';
import { everyRunningRegionStuck } from './stuck-regions.js';

/**
 * What a changed region view may set off: once every region has its final status the gate cleans up
 * (seed 001 §10.5.2 `handle_final_status`: no wake-up, no re-send); while undecided, the last region
 * known to be stuck makes every still-running one stuck (condition 3). Stuckness only changes when a
 * report arrives, so this is the one place it is checked.
 */
export function settleAfterReport(job: GateJob, now: EpochMs, policy: GatePolicy): Decision<GateJob> {
  if (allRegionsFinal(job)) {
    const done = disarmGateTimer(job);
    return { state: done.job, effects: done.effects };
  }
  if (!isDecided(job) && everyRunningRegionStuck(job, policy)) return declareGlobalTimeout(job, { kind: 'stuck' }, now, policy);
  return { state: job, effects: [] };
}
