import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import {
  freshBudget,
  grantSeconds,
  remainingExtensions,
  requestExtension,
  type ExtensionBudget,
} from '../../../shared/domain/extension-budget.js';
import { defaultExtensionPolicy, type ExtensionPolicy } from '../../../shared/domain/policy.js';

// AD-26 at the defaults: base 30 s, min grant 1 s, at most 5 extensions.
const defaults = defaultExtensionPolicy;

interface Step {
  progress: number;
  budgetBefore: ExtensionBudget;
  granted: boolean;
  seconds: number;
  denialReason?: string;
}

/** Runs one worker's requests through one budget (no recovery in between). */
function runBudget(progressSequence: readonly number[], policy: ExtensionPolicy = defaults): { steps: Step[]; budget: ExtensionBudget } {
  let budget = freshBudget();
  const steps: Step[] = [];
  for (const progress of progressSequence) {
    const outcome = requestExtension(budget, { currentProgress: progress, jobId: 'job-1' }, false, policy);
    if (outcome.granted) {
      steps.push({ progress, budgetBefore: budget, granted: true, seconds: outcome.seconds });
      budget = outcome.budget;
    } else {
      steps.push({ progress, budgetBefore: budget, granted: false, seconds: 0, denialReason: outcome.denialReason });
    }
  }
  return { steps, budget };
}

/** Progress that mostly moves forward, sometimes stalls or goes back, within [0, 1]. */
const progressSequence = fc
  .array(fc.oneof(fc.constant(0), fc.double({ min: -0.2, max: 0.3, noNaN: true })), { maxLength: 30 })
  .map((deltas) => {
    let progress = 0;
    return deltas.map((delta) => (progress = Math.min(1, Math.max(0, progress + delta))));
  });

const grantsOf = (steps: readonly Step[]) => steps.filter((step) => step.granted).map((step) => step.seconds);

describe('AD-26 extension budget, within one budget at the defaults (properties)', () => {
  it('grants never increase', () => {
    fc.assert(
      fc.property(progressSequence, (sequence) => {
        // Act
        const grants = grantsOf(runBudget(sequence).steps);
        // Assess
        grants.slice(1).forEach((grant, i) => expect(grant).toBeLessThanOrEqual(grants[i] ?? Infinity));
      }),
    );
  });

  it('at most 5 extensions, totalling at most 58.125 s, and the budget total is the sum of the grants', () => {
    fc.assert(
      fc.property(progressSequence, (sequence) => {
        // Act
        const { steps, budget } = runBudget(sequence);
        // Assess
        const grants = grantsOf(steps);
        expect(budget.count).toBe(grants.length);
        expect(budget.count).toBeLessThanOrEqual(5);
        expect(budget.totalSeconds).toBe(grants.reduce((sum, seconds) => sum + seconds, 0));
        expect(budget.totalSeconds).toBeLessThanOrEqual(58.125);
      }),
    );
  });

  it('after the first grant, no request without progress since the last grant is granted, and the denial says why', () => {
    fc.assert(
      fc.property(progressSequence, (sequence) => {
        // Act
        const withoutProgress = runBudget(sequence).steps.filter(
          (step) => step.budgetBefore.count > 0 && step.progress <= step.budgetBefore.lastProgress,
        );
        // Assess
        for (const step of withoutProgress) {
          expect(step.granted).toBe(false);
          expect(step.denialReason).toMatch(/^(No progress since last extension|Maximum extensions \(5\) exceeded)/);
        }
      }),
    );
  });

  it('the first request is granted 30 s whatever its progress, even 0', () => {
    fc.assert(
      fc.property(fc.double({ min: 0, max: 1, noNaN: true }), (progress) => {
        // Act + Assess
        expect(requestExtension(freshBudget(), { currentProgress: progress, jobId: 'job-1' }, false, defaults)).toMatchObject({ granted: true, seconds: 30 });
      }),
    );
  });

  it('a suspect worker is denied whatever its budget and progress, with a reason naming suspicion', () => {
    fc.assert(
      fc.property(progressSequence, fc.double({ min: 0, max: 1, noNaN: true }), (sequence, progress) => {
        // Prepare
        const { budget } = runBudget(sequence);
        // Act
        const outcome = requestExtension(budget, { currentProgress: progress, jobId: 'job-1' }, true, defaults);
        // Assess
        expect(outcome.granted).toBe(false);
        if (!outcome.granted) expect(outcome.denialReason).toMatch(/suspect/);
      }),
    );
  });
});

describe('AD-26 extension grants at the defaults (examples)', () => {
  it('five requests with progress get 30, 15, 7.5, 3.75 and 1.875 s: the formula governs over the seed table\'s 1.0 s', () => {
    // Prepare
    const sequence = [0.1, 0.2, 0.3, 0.4, 0.5];
    // Act
    const { steps, budget } = runBudget(sequence);
    // Assess
    expect(grantsOf(steps)).toEqual([30, 15, 7.5, 3.75, 1.875]);
    expect(grantSeconds(4, defaults)).toBe(1.875);
    expect(budget.totalSeconds).toBe(58.125);
    expect(remainingExtensions(budget, defaults)).toBe(0);
  });

  it('the sixth request is denied even with progress: the maximum is 5', () => {
    // Prepare
    const { budget } = runBudget([0.1, 0.2, 0.3, 0.4, 0.5]);
    // Act
    const sixth = requestExtension(budget, { currentProgress: 0.9, jobId: 'job-1' }, false, defaults);
    // Assess
    expect(sixth).toEqual({ granted: false, denialReason: 'Maximum extensions (5) exceeded for this worker.' });
  });

  it('the same progress twice: the second request is denied and the reason quotes both values', () => {
    // Prepare
    const { budget } = runBudget([0.4]);
    // Act
    const again = requestExtension(budget, { currentProgress: 0.4, jobId: 'job-1' }, false, defaults);
    // Assess
    expect(again).toEqual({ granted: false, denialReason: 'No progress since last extension (was 0.4, now 0.4).' });
  });

  it('remainingExtensions counts down from 5 with each grant', () => {
    // Prepare
    const sequence = [0.1, 0.2, 0.3];
    // Act
    const { budget } = runBudget(sequence);
    // Assess
    expect(remainingExtensions(freshBudget(), defaults)).toBe(5);
    expect(remainingExtensions(budget, defaults)).toBe(2);
  });

  it('the 1 s floor applies once base / 2^count falls below it (a policy allowing 7 extensions)', () => {
    // Prepare
    const sevenAllowed: ExtensionPolicy = { ...defaults, maxExtensions: 7 };
    // Act
    const { steps } = runBudget([0.1, 0.2, 0.3, 0.4, 0.5, 0.6, 0.7], sevenAllowed);
    // Assess
    expect(grantsOf(steps)).toEqual([30, 15, 7.5, 3.75, 1.875, 1, 1]);
  });
});
