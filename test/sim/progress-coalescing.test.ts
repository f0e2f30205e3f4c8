import { describe, expect, it } from 'vitest';
import { runPlan } from '../../shared/simulation/run-plan.js';
import { generatePlan } from '../../shared/simulation/world/generate-plan.js';

describe('rises in progress coalesced within a window, under the simulator', () => {
  // Seed 267: a bursty worker heartbeats with its stored value for a window, rises once, then falls
  // silent. Coalescing that rise against the heartbeat's time instead of the stored stuck clock
  // timed job-267-2 out as stuck 56 s after its last rise, with a 57 s threshold.
  it('seed 267: a rise after a run of repeats is written, so the job is not timed out as stuck early', async () => {
    // Act
    const result = await runPlan(generatePlan(267, { jobs: 3, regions: 1, pools: 0, maxTimeoutSeconds: 300, faults: ['worker-bursts'] }));
    // Assess
    expect(result.violations).toEqual([]);
  });
});
