import type { ExtensionPolicy } from './policy.js';

/** AD-26: one worker's extension budget. Reset when the worker recovers. */
export interface ExtensionBudget {
  /** Which budget this is: goes up by one at each reset, so (epoch, count) names every grant once. */
  epoch: number;
  count: number;
  lastProgress: number;
  totalSeconds: number;
}

export const freshBudget = (epoch = 0): ExtensionBudget => ({ epoch, count: 0, lastProgress: 0, totalSeconds: 0 });

/** The identity of a grant: the budget it came from and its number in that budget. */
export interface GrantId {
  epoch: number;
  count: number;
}

/**
 * AD-26: `max(minGrant, base / 2^count)`. The formula governs over the seed's table, whose
 * fifth row says 1.0 s: 30 / 2^4 = 1.875 s, which is above the 1 s floor.
 */
export const grantSeconds = (count: number, policy: ExtensionPolicy): number =>
  Math.max(policy.minGrantSeconds, policy.baseSeconds / 2 ** count);

export const remainingExtensions = (budget: ExtensionBudget, policy: ExtensionPolicy): number =>
  Math.max(0, policy.maxExtensions - budget.count);

export type ExtensionOutcome =
  | { granted: true; seconds: number; budget: ExtensionBudget }
  | { granted: false; denialReason: string };

export function requestExtension(
  budget: ExtensionBudget,
  currentProgress: number,
  workerIsSuspect: boolean,
  policy: ExtensionPolicy,
): ExtensionOutcome {
  if (workerIsSuspect) {
    return {
      granted: false,
      denialReason: 'Worker is suspect: it missed its health deadline. Send a progress report to recover first.',
    };
  }
  if (budget.count >= policy.maxExtensions) {
    return { granted: false, denialReason: `Maximum extensions (${policy.maxExtensions}) exceeded for this worker.` };
  }
  if (budget.count > 0 && currentProgress <= budget.lastProgress) {
    return {
      granted: false,
      denialReason: `No progress since last extension (was ${budget.lastProgress}, now ${currentProgress}).`,
    };
  }
  const seconds = grantSeconds(budget.count, policy);
  return {
    granted: true,
    seconds,
    budget: { epoch: budget.epoch, count: budget.count + 1, lastProgress: currentProgress, totalSeconds: budget.totalSeconds + seconds },
  };
}
