import { grantSeconds } from '../../shared/domain/extension-budget.js';
import type { TimeoutStrategyType } from '../../shared/domain/job.js';
import type { TimeoutPolicy } from '../../shared/domain/policy.js';

/**
 * The stated detection bound: how long past its effective deadline a job may still be RUNNING.
 * Local authority: the wake-up is due at the deadline and arrives within a second or two; if it
 * is lost, the sweep (every 60 s, 5 s grace) fires it; a crashed attempt comes back after the
 * 30 s visibility timeout. So 60 + 5 s plus 5 s of delivery slack. Gate-coordinated: the manager reports the local timeout and waits for the
 * gate at most `gateFallbackSeconds`, re-reporting every `gateReportIntervalSeconds`, then acts
 * alone, so the bound adds those to the local one.
 */
export const LOCAL_DETECTION_BOUND_MS = 70_000;

export function detectionBoundMs(strategy: TimeoutStrategyType, policy: TimeoutPolicy): number {
  if (strategy === 'local_authority') return LOCAL_DETECTION_BOUND_MS;
  return LOCAL_DETECTION_BOUND_MS + (policy.gateFallbackSeconds + policy.gateReportIntervalSeconds) * 1000;
}

/** AD-26: the most one worker can be granted, the sum of the halving grants (30 + 15 + … = 58.125 s). */
export function extensionCapSeconds(policy: TimeoutPolicy): number {
  let total = 0;
  for (let count = 0; count < policy.extensions.maxExtensions; count++) total += grantSeconds(count, policy.extensions);
  return total;
}
