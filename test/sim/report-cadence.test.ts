import { describe, expect, it } from 'vitest';
import { pollingDesign } from '../../shared/simulation/cost/alternatives.js';
import { WORKLOADS } from '../../shared/simulation/cost/report.js';
import { measureVigil } from '../../shared/simulation/cost/vigil-usage.js';

/**
 * The cost model prices Vigil for as many reports as the workload states, as it prices the seeds'
 * polling design. Its workers once waited `progressEveryMs + rng.int(0, 500)` between reports, 250 ms
 * late on average, so a 1 h workflow reported about 351 times instead of 360 (found by a review); they
 * now report on the SDK's fixed period (shared/simulation/world/sim-worker.ts, `sdkHeartbeatMs`).
 */
describe('Vigil is priced for as many reports as the workload states', () => {
  it('1 region, 10 wf, 1 h, progress every 10 s: the model runs the stated 3,600 reports (the polling design is priced for 3,600)', async () => {
    // Arrange
    const workload = WORKLOADS[1];
    if (!workload) throw new Error('no 1 h workload');
    // Act
    const vigil = await measureVigil(workload);
    // Assess: worker calls = reports + one completion per workflow
    const vigilReports = vigil.perJob.apiRequestsWorker - workload.workflows;
    const pollingReports = pollingDesign(workload).perJob.apiRequestsWorker - workload.workflows;
    expect(pollingReports).toBe(vigil.reportsPerJob);
    expect(vigilReports, `Vigil priced for ${vigilReports} reports, the polling design for ${pollingReports}; WRU per report ${(vigil.perJob.dynamoWriteUnits / vigilReports).toFixed(3)} measured, ${(vigil.perJob.dynamoWriteUnits / vigil.reportsPerJob).toFixed(3)} printed`).toBeGreaterThanOrEqual(vigil.reportsPerJob);
  }, 60_000);
});
