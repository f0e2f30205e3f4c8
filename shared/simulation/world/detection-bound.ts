import { grantSeconds } from '../../domain/extension-budget.js';
import type { TimeoutPolicy } from '../../domain/policy.js';
import { HEALTH_WRITE_INTERVAL_MS } from '../../domain/worker-health.js';

/**
 * The stated detection bound is the project's own (shared/app/detection-bound.ts): the simulator checks
 * exactly it, with its stated condition (at most `SWEEP_CAPACITY` entries due per region per sweep),
 * in whole sweeps. Its sweeps take no time, so what a fire's place in its sweep adds in real time
 * (`boundAtSweepPositionMs`) is checked apart (test/app/sweep/swept-fire-bound.property.test.ts).
 */
export { boundWithDeadSweepsMs, boundWithSweepBacklogMs, detectionBoundMs } from '../../app/detection-bound.js';

/** AD-26: the most one worker can be granted, the sum of the halving grants (30 + 15 + … = 58.125 s). */
export function extensionCapSeconds(policy: TimeoutPolicy): number {
  let total = 0;
  for (let count = 0; count < policy.extensions.maxExtensions; count++) total += grantSeconds(count, policy.extensions);
  return total;
}

/**
 * Seed 001 §10.4.9 with AD-26: a worker heard of last at `s` is failed by `s` plus its health window
 * (the base plus its budget's grants, at most the cap, plus the write lag) plus the suspicion window.
 * From then on its grants no longer count (§10.7.9).
 */
export const latestFailureMs = (policy: TimeoutPolicy): number =>
  HEALTH_WRITE_INTERVAL_MS + (policy.extensions.baseSeconds + extensionCapSeconds(policy) + policy.workerSuspicionSeconds) * 1000 + 1;
