import { grantSeconds } from '../../domain/extension-budget.js';
import type { TimeoutPolicy } from '../../domain/policy.js';

/** The stated detection bound is the project's own (shared/app/detection-bound.ts): the simulator checks exactly it. */
export { detectionBoundMs } from '../../app/detection-bound.js';

/** AD-26: the most one worker can be granted, the sum of the halving grants (30 + 15 + … = 58.125 s). */
export function extensionCapSeconds(policy: TimeoutPolicy): number {
  let total = 0;
  for (let count = 0; count < policy.extensions.maxExtensions; count++) total += grantSeconds(count, policy.extensions);
  return total;
}
