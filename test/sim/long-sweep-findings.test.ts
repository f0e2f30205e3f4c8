import { describe, expect, it } from 'vitest';
import { runPlan } from '../../shared/simulation/run-plan.js';
import { generatePlan } from '../../shared/simulation/world/generate-plan.js';
import type { FaultKind } from '../../shared/simulation/world/plan.js';

/** The fault kinds of the long sweep that found these seeds, listed so new kinds do not redraw their plans. */
const SWEEP_FAULTS: FaultKind[] = [
  'drop', 'duplicate', 'delay', 'reorder', 'crash', 'redelivery', 'index-lag', 'timer-loss', 'gate-down',
  'region-cut', 'bus-outage', 'takeover', 'worker-dies', 'worker-hangs', 'extension-no-progress', 'worker-recovers',
];

describe('seeds the long sweep flagged', () => {
  // Both: a worker finished its part of a job and got a fresh budget, so its grant stopped counting and
  // the job's deadline moved 72 s into the past at that moment (205722: and the wake-up re-armed for it
  // was lost). The job then timed out within the bound of that moment, not of the retroactive deadline.
  it.each([205054, 205722])('seed %i: a deadline moved into the past ends the job within the bound from when it moved', async (seed) => {
    // Act
    const result = await runPlan(generatePlan(seed, { jobs: 4, regions: 2, pools: 0, maxTimeoutSeconds: 600, faults: SWEEP_FAULTS }));
    // Assess
    expect(result.violations).toEqual([]);
  });
});
