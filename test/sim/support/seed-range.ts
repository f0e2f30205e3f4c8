import { expect, it } from 'vitest';
import { describeFailures, sweepSeeds, type SweepSummary } from '../../../shared/simulation/sweep.js';
import type { PlanOptions } from '../../../shared/simulation/world/generate-plan.js';
import { FAULT_KINDS } from '../../../shared/simulation/world/plan.js';

/** What CI runs per seed: three jobs of up to 5 min over two regions (gate-coordinated and local), one agent pool, every fault kind. */
export const CI_PLAN: PlanOptions = { jobs: 3, regions: 2, pools: 1, faults: FAULT_KINDS, maxTimeoutSeconds: 300 };

/** The submit routes: each writes the job item, then its workflow items (`createJob`). */
const SUBMITS = ['submit-job', 'gate submit-job', 'submit-from-gate'];

/**
 * One vitest case per range of seeds (two files run in parallel on the two cores). A violation
 * fails the case with each broken invariant, its seeds and the command that replays one. A second
 * case checks, on the same run, that the crash fault struck between the writes of use cases that
 * make more than one.
 */
export function itHoldsForSeeds(from: number, count: number): void {
  let summary: SweepSummary | undefined;
  it(`every invariant holds for seeds ${from}–${from + count - 1}`, { timeout: 300_000 }, async () => {
    summary = await sweepSeeds(from, count, CI_PLAN);
    console.log(`seeds ${from}–${from + count - 1}: ${summary.steps} steps, ${(summary.simulatedMs / 3_600_000).toFixed(0)} h simulated, ${summary.jobs} jobs; crashes ${summary.crashes.describe()}`);
    const replay = `replay one with: npm run simulate -- --seed <seed> --jobs ${CI_PLAN.jobs} --regions ${CI_PLAN.regions} --pools ${CI_PLAN.pools} --max-timeout ${CI_PLAN.maxTimeoutSeconds ?? 600} --trace`;
    expect(describeFailures(summary), replay).toEqual([]);
  });

  it(`seeds ${from}–${from + count - 1} crash use cases between their writes: a job wake-up's, a submission's`, () => {
    if (!summary) throw new Error('the sweep of these seeds did not run');
    const crashes = summary.crashes;
    // Reached with write 1 made: a decision and its history or outbox, a job item and its workflows.
    expect(crashes.at('before write 2', 'fire-timer')).toBeGreaterThan(0);
    expect(SUBMITS.map((route) => crashes.at('before write 2', route))).not.toEqual(SUBMITS.map(() => 0));
    // Every kind of point is reached, the original one (at the effects) too.
    expect(['before write 1', 'after write 1', 'after write 2', 'before write 3', 'at the effects'].map((point) => crashes.at(point) > 0)).toEqual([true, true, true, true, true]);
  });
}
