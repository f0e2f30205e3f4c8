import { describe, expect, it } from 'vitest';
import { freshBudget, requestExtension } from '../../../shared/domain/extension-budget.js';
import { defaultExtensionPolicy } from '../../../shared/domain/policy.js';
import { healthDeadline, newWorker, onHealthcheck, workerStatus, type WorkerHealth } from '../../../shared/domain/worker-health.js';
import { at, policy, T0 } from '../../support/fixtures.js';

// Defaults: base 30 s, suspicion 30 s; the health deadline also allows the 1 s healthcheck write lag.
const worker = (overrides: Partial<WorkerHealth> = {}): WorkerHealth => ({ ...newWorker('worker-a', T0), ...overrides });

/** A budget with every one of the five extensions spent. */
function exhaustedBudget() {
  let budget = freshBudget();
  for (const progress of [0.1, 0.2, 0.3, 0.4, 0.5]) {
    const outcome = requestExtension(budget, { currentProgress: progress, jobId: 'job-1' }, false, defaultExtensionPolicy);
    if (!outcome.granted) throw new Error('five grants with progress expected');
    budget = outcome.budget;
  }
  return budget;
}

describe('AD-26 worker health: every progress report is a healthcheck', () => {
  it('a worker is healthy up to its health deadline: base seconds after its last healthcheck, plus the write lag', () => {
    // Prepare
    const w = worker();
    // Act
    const deadline = healthDeadline(w, policy());
    // Assess
    expect(deadline).toBe(at(31));
    expect(workerStatus(w, at(31), policy())).toBe('healthy');
    expect(workerStatus(w, at(31) + 1, policy())).toBe('suspect');
  });

  it('granted extensions move the health deadline by their seconds', () => {
    // Prepare
    const w = worker({ budget: { epoch: 0, count: 2, lastProgress: 0.5, totalSeconds: 45 } });
    // Act
    const status = workerStatus(w, at(76), policy());
    // Assess
    expect(status).toBe('healthy');
    expect(workerStatus(w, at(76) + 1, policy())).toBe('suspect');
  });

  it('a suspect worker counts as failed once the suspicion window has passed too', () => {
    // Prepare
    const w = worker();
    // Act
    const lastSuspect = workerStatus(w, at(61), policy());
    const failed = workerStatus(w, at(61) + 1, policy());
    // Assess
    expect(lastSuspect).toBe('suspect');
    expect(failed).toBe('failed');
  });

  it('a worker reported failed is failed whatever the time', () => {
    // Prepare
    const w = worker({ failedAt: at(1) });
    // Act
    const status = workerStatus(w, at(2), policy());
    // Assess
    expect(status).toBe('failed');
  });

  it('a healthy worker\'s healthcheck only moves lastHealthAt, at most once per second', () => {
    // Prepare
    const w = worker();
    // Act
    const tooSoon = onHealthcheck(w, T0 + 999, policy());
    const due = onHealthcheck(w, T0 + 1_000, policy());
    // Assess
    expect(tooSoon).toEqual({ kind: 'none' });
    expect(due).toEqual({ kind: 'touch' });
  });

  it('a healthcheck from a failed worker with a spent budget recovers it with a fresh budget, which grants 30 s again', () => {
    // Prepare
    const failed = worker({ failedAt: at(5), budget: exhaustedBudget() });
    // Act
    const write = onHealthcheck(failed, at(10), policy());
    // Assess
    if (write.kind !== 'recover') throw new Error(`expected a recovery, got ${write.kind}`);
    expect(write.budget).toEqual(freshBudget(1));
    expect(requestExtension(write.budget, { currentProgress: 0.05, jobId: 'job-1' }, false, defaultExtensionPolicy)).toMatchObject({ granted: true, seconds: 30 });
  });

  it('a healthcheck from a worker failed by its silence moves even an untouched budget to the next epoch; after a reported failure it keeps the fresh one', () => {
    // Prepare: silent since T0 (failed after 61 s), and reported failed with the fresh budget of epoch 1.
    const silent = worker();
    const reported = worker({ failedAt: at(5), budget: freshBudget(1) });
    // Act
    const afterSilence = onHealthcheck(silent, at(100), policy());
    const afterReport = onHealthcheck(reported, at(10), policy());
    // Assess
    expect(afterSilence).toEqual({ kind: 'recover', budget: freshBudget(1) });
    expect(afterReport).toEqual({ kind: 'recover', budget: freshBudget(1) });
  });

  it('a healthcheck from a suspect (not failed) worker keeps its budget: only its health moves', () => {
    // Prepare
    const suspect = worker({ budget: exhaustedBudget() });
    // Act
    const write = onHealthcheck(suspect, at(100), policy());
    // Assess
    expect(workerStatus(suspect, at(100), policy())).toBe('suspect');
    expect(write).toEqual({ kind: 'touch' });
  });
});
