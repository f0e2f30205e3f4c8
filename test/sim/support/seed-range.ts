import { expect, it } from 'vitest';
import { describeFailures, sweepSeeds } from '../../../shared/simulation/sweep.js';
import type { PlanOptions } from '../../../shared/simulation/world/generate-plan.js';
import { FAULT_KINDS } from '../../../shared/simulation/world/plan.js';

/** What CI runs per seed: three jobs of up to 5 min over two regions (gate-coordinated and local), one agent pool, every fault kind. */
export const CI_PLAN: PlanOptions = { jobs: 3, regions: 2, pools: 1, faults: FAULT_KINDS, maxTimeoutSeconds: 300 };

/**
 * One vitest case per range of seeds (two files run in parallel on the two cores). A violation
 * fails the case with each broken invariant, its seeds and the command that replays one.
 */
export function itHoldsForSeeds(from: number, count: number): void {
  it(`every invariant holds for seeds ${from}–${from + count - 1}`, { timeout: 300_000 }, async () => {
    const summary = await sweepSeeds(from, count, CI_PLAN);
    console.log(`seeds ${from}–${from + count - 1}: ${summary.steps} steps, ${(summary.simulatedMs / 3_600_000).toFixed(0)} h simulated, ${summary.jobs} jobs`);
    const replay = `replay one with: npm run simulate -- --seed <seed> --jobs ${CI_PLAN.jobs} --regions ${CI_PLAN.regions} --pools ${CI_PLAN.pools} --max-timeout ${CI_PLAN.maxTimeoutSeconds ?? 600} --trace`;
    expect(describeFailures(summary), replay).toEqual([]);
  });
}
