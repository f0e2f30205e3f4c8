import { describe, expect, it } from 'vitest';
import { submitGateJob } from '../../../shared/app/gate/submit-gate-job.js';
import { requestExtension } from '../../../shared/app/request-extension.js';
import { effectiveDeadline } from '../../../shared/domain/deadlines.js';
import { UpstreamUnavailableError } from '../../../shared/domain/errors.js';
import { globalDeadline, regionDeadline } from '../../../shared/domain/gate/global-deadline.js';
import { at } from '../../support/fixtures.js';
import { useGateWorld } from '../support/gate-world.js';
import { submit, tokenOf } from '../support/test-manager.js';
import type { TestRegions } from '../support/test-regions.js';

const EU = 'eu-west-1';

/**
 * The gate counts a region's deadline from when that region started the job, plus that region's
 * extension total as its reports say (global-deadline.ts). The start must not already hold the
 * extensions: a region whose first answer to the fan-out was lost (it wrote the job, the invoke timed
 * out) answers the caller's resend with its *effective* deadline, which counts the grants its worker
 * got since (a grant extends every running job the worker is in, AD-26 / seed 001 §10.4.7). Taken as
 * "deadline less the timeout", that start is late by the grants, and the gate adds them a second time.
 */
describe("a region whose first answer to the gate's fan-out was lost, its worker granted an extension before the resend", () => {
  const w = useGateWorld();

  it("the gate counts that region's deadline as the region does: from its start, the grant once", async () => {
    // Prepare: EU writes the 60 s job at 0 s, but its answer never reaches the gate (503 to the caller)
    const body = { jobId: 'g-1', timeoutSeconds: 60, datacenters: { [EU]: { workflows: [{ workflowId: 'wf-1', workerId: 'worker-a' }] } } };
    const regions = w.gate.regions as TestRegions;
    regions.answerLost.add(EU);
    await expect(submitGateJob(w.gate, body)).rejects.toBeInstanceOf(UpstreamUnavailableError);
    regions.answerLost.clear();
    // worker-a also works on a job of EU's own; at 10 s it is granted 30 s, which extends every job it is in
    const local = await submit(w.manager(EU), { jobId: 'local-1', timeoutSeconds: 600, workflows: [{ workflowId: 'wf-x', workerId: 'worker-a' }] });
    w.clock.set(at(10));
    const grant = await requestExtension(w.manager(EU).deps, { workerId: 'worker-a', token: tokenOf(local, 'wf-x'), currentProgress: 0.3 });
    expect(grant).toMatchObject({ granted: true, extensionSeconds: 30 });
    const regionTold = effectiveDeadline((await w.manager(EU).getJob('g-1')).tracking);
    expect(regionTold).toBe(at(90));

    // Act: the caller resends the same body at 20 s, as the 503 told it; the region's reports reach the gate
    w.clock.set(at(20));
    await submitGateJob(w.gate, body);
    await w.pump();

    // Assess: the gate's deadline for EU (and the job's global deadline) is EU's own: 0 s + 60 s + 30 s
    const gateJob = await w.gateJob('g-1');
    expect(gateJob.dcTotalExtensions[EU]).toBe(30);
    expect(new Date(regionDeadline(gateJob, EU)).toISOString()).toBe(new Date(regionTold).toISOString());
    expect(new Date(globalDeadline(gateJob)).toISOString()).toBe(new Date(at(90)).toISOString());
  });
});
