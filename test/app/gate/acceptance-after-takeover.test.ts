import { describe, expect, it } from 'vitest';
import { onManagerReport } from '../../../shared/app/gate/on-manager-report.js';
import { submitGateJob } from '../../../shared/app/gate/submit-gate-job.js';
import { takeOverJob } from '../../../shared/app/take-over-job.js';
import { effectiveDeadline } from '../../../shared/domain/deadlines.js';
import { UpstreamUnavailableError } from '../../../shared/domain/errors.js';
import { regionDeadline } from '../../../shared/domain/gate/global-deadline.js';
import { JobLeaderTransfer } from '../../../shared/events/job-leader-transfer.js';
import type { SubmitFromGateBody } from '../../../shared/contract/manager-requests.js';
import type { RegionSubmitResult } from '../../../shared/ports/region-managers.js';
import { at } from '../../support/fixtures.js';
import { useGateWorld } from '../support/gate-world.js';
import type { TestRegions } from '../support/test-regions.js';

const US = 'us-east-1';
const EU = 'eu-west-1';

/**
 * The gate records a region's acceptance (`markRegionSubmitted`) after the region's answer came back.
 * A takeover in that region between its answer and that record, its JobLeaderTransfer heard first,
 * raised the fence the gate holds for the region: the acceptance, at the older fence, was refused as
 * stale and lost, and with it the region's start. A region that accepted late (the caller's resend)
 * was then counted from the gate's `submittedAt`, and timed out globally before the deadline its
 * workers were told. No takeover moves a job's `startedAt`: the acceptance still says it truly.
 */
describe('a region accepts the resent job and is taken over before the gate records its acceptance (dynalite)', () => {
  const w = useGateWorld();

  it("the gate keeps the region's start and does not time the job out before the region's deadline", async () => {
    // Prepare: EU does not answer the first fan-out (503); the caller resends the same body at 50 s.
    const body = {
      jobId: 'late-eu',
      timeoutSeconds: 60,
      datacenters: {
        [US]: { workflows: [{ workflowId: 'wf-us', workerId: 'worker-us' }] },
        [EU]: { workflows: [{ workflowId: 'wf-eu', workerId: 'worker-eu' }] },
      },
    };
    const regions = w.gate.regions as TestRegions;
    regions.unreachable.add(EU);
    await expect(submitGateJob(w.gate, body)).rejects.toBeInstanceOf(UpstreamUnavailableError);
    regions.unreachable.clear();
    await w.pump();
    // EU takes the resend, and right after its answer leaves, an operator takes the job over there;
    // the takeover's report reaches the gate before the gate records EU's answer.
    const realSubmit = regions.submit.bind(regions);
    regions.submit = async (region: string, submission: SubmitFromGateBody): Promise<RegionSubmitResult> => {
      const answer = await realSubmit(region, submission);
      if (region === EU) {
        await takeOverJob(w.manager(EU).deps, submission.jobId);
        const transfer = w.manager(EU).bus.published.filter((event) => event.detailType === JobLeaderTransfer.detailType).at(-1);
        if (!transfer) throw new Error('the takeover published no JobLeaderTransfer');
        await onManagerReport(w.gate, { kind: 'JobLeaderTransfer', detail: JobLeaderTransfer.parse(transfer.detail) });
      }
      return answer;
    };
    w.clock.set(at(50));
    await submitGateJob(w.gate, body);
    const told = effectiveDeadline((await w.manager(EU).getJob('late-eu')).tracking);
    expect(told).toBe(at(110));

    // Act: the gate's wake-ups come as due, past the job's own deadline (60 s) and its graces.
    for (let fired = 0; fired < 4; fired++) {
      const job = await w.gateJob('late-eu');
      if (job.globallyTimedOut || job.timerDueAt === undefined || job.timerDueAt >= told) break;
      await w.fireGate('late-eu', job.timerDueAt);
    }
    await w.pump();

    // Assess: the gate holds EU's start and its fence after the takeover; EU still runs.
    const gateJob = await w.gateJob('late-eu');
    expect((await w.manager(EU).getJob('late-eu')).status).toBe('RUNNING');
    expect(gateJob.globallyTimedOut).toBe(false);
    expect(gateJob.dcFenceToken[EU]).toBe(2);
    expect(gateJob.dcStartedAt?.[EU]).toBe(at(50));
    expect(regionDeadline(gateJob, EU)).toBe(told);
  });
});
