import { afterEach, describe, expect, it, vi } from 'vitest';
import { runPlan } from '../../shared/simulation/run-plan.js';
import { generatePlan } from '../../shared/simulation/world/generate-plan.js';
import { CI_PLAN } from './support/seed-range.js';

describe('a run and the wall clock', () => {
  afterEach(() => vi.restoreAllMocks());

  it('replays a seed byte for byte when the process stalls mid-run (a breakpoint, a suspended process, a busy machine)', async () => {
    // Prepare: seed 21 run as is, then again with the process stalled 45 s in real time at the 250th
    // reading of real time (before the fix, during a sweep: its 40 s budget, read in real time, was spent).
    const plan = generatePlan(21, CI_PLAN);
    const undisturbed = await runPlan(plan);
    const now = performance.now.bind(performance);
    let readings = 0;
    vi.spyOn(performance, 'now').mockImplementation(() => now() + (++readings > 250 ? 45_000 : 0));
    // Act
    const stalled = await runPlan(plan);
    // Assess
    expect(stalled.steps).toBe(undisturbed.steps);
    expect(stalled.digest).toBe(undisturbed.digest);
  });
});
