import { describe, expect, it } from 'vitest';
import { cancelJob } from '../../../shared/app/cancel-job.js';
import { getGateJob } from '../../../shared/app/gate/get-gate-job.js';
import { submitGateJob } from '../../../shared/app/gate/submit-gate-job.js';
import { getJob } from '../../../shared/app/get-job.js';
import { reportProgress } from '../../../shared/app/report-progress.js';
import { at } from '../../support/fixtures.js';
import { useGateWorld } from '../support/gate-world.js';

const US = 'us-east-1';
const EU = 'eu-west-1';

/**
 * `POST /jobs/{jobId}/cancel` on one region of a gate-coordinated job ended it there only: the other
 * regions ran on to their deadline, their workers never told to stop, and the gate showed the job
 * RUNNING meanwhile. The job is one job across its regions: a cancel at any of them cancels it
 * everywhere, as a cancel through the gate does, also when the gate does not hear the first word of it.
 * One gate and two real region managers on dynalite, one injected clock; the test moves the events.
 */
describe("a region's own cancel of a gate-coordinated job (dynalite)", () => {
  const w = useGateWorld();

  async function submitTwoRegions(jobId: string) {
    const submitted = await submitGateJob(w.gate, {
      jobId,
      timeoutSeconds: 600,
      datacenters: {
        [US]: { workflows: [{ workflowId: 'wf-us', workerId: 'worker-us' }] },
        [EU]: { workflows: [{ workflowId: 'wf-eu', workerId: 'worker-eu' }] },
      },
    });
    await w.pump();
    return (region: string) => submitted.view.datacenters[region]?.workflows[0]?.token ?? '';
  }

  it('cancels the job in every region, with its reason; the gate reads CANCELLED and names the region', async () => {
    // Prepare
    const token = await submitTwoRegions('cancel-at-us');
    w.clock.set(at(30));

    // Act: the user cancels at us-east-1; the events move.
    const answer = await cancelJob(w.manager(US).deps, 'cancel-at-us', 'wrong input');
    await w.pump();

    // Assess: EU's worker is told to stop, both regions ended CANCELLED with the reason, and the gate agrees.
    expect(answer.status).toBe('CANCELLED');
    const heard = await reportProgress(w.manager(EU).deps, { jobId: 'cancel-at-us', workflowId: 'wf-eu', workerId: 'worker-eu', token: token(EU), progress: 0.5 });
    expect(heard).toMatchObject({ status: 'CANCELLED', cancel: true });
    for (const region of [US, EU]) {
      const job = await w.manager(region).getJob('cancel-at-us');
      expect(job.status).toBe('CANCELLED');
      expect(job.cancelReason).toBe('wrong input');
    }
    const view = await getGateJob(w.gate, 'cancel-at-us');
    expect(view).toMatchObject({ status: 'CANCELLED', cancelReason: 'wrong input', cancelledIn: US });
    expect(view.datacenters[US]?.status).toBe('cancelled');
    expect(view.datacenters[EU]?.status).toBe('cancelled');
    // Answered, us-east-1 sends its cancel no more.
    expect((await w.manager(US).getJob('cancel-at-us')).cancelToSpread).toBeUndefined();
    expect((await w.gateJob('cancel-at-us')).timerDueAt).toBeUndefined();
  });

  it('the gate down when the region cancelled: the region sends its cancel again and it still reaches the others', async () => {
    // Prepare
    await submitTwoRegions('cancel-gate-down');
    w.clock.set(at(30));

    // Act: the cancel's final status reaches a gate that is down (lost); us-east-1 wakes up as it asked;
    // the gate is up again by then.
    await cancelJob(w.manager(US).deps, 'cancel-gate-down', undefined);
    await w.regionsToGate(true);
    expect((await w.manager(EU).getJob('cancel-gate-down')).status).toBe('RUNNING');
    await w.fireRegion(US, 'cancel-gate-down');
    await w.pump();

    // Assess
    expect((await w.manager(EU).getJob('cancel-gate-down')).status).toBe('CANCELLED');
    expect((await getJob(w.manager(EU).deps, 'cancel-gate-down')).status).toBe('CANCELLED');
    expect((await getGateJob(w.gate, 'cancel-gate-down')).status).toBe('CANCELLED');
    expect((await w.manager(US).getJob('cancel-gate-down')).cancelToSpread).toBeUndefined();
  });
});
