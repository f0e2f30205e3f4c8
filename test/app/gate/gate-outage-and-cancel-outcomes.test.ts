import { describe, expect, it } from 'vitest';
import { cancelGateJob } from '../../../shared/app/gate/cancel-gate-job.js';
import { getGateJob } from '../../../shared/app/gate/get-gate-job.js';
import { submitGateJob } from '../../../shared/app/gate/submit-gate-job.js';
import { sweepGateTimers } from '../../../shared/app/gate/sweep-gate-timers.js';
import { completeWorkflow } from '../../../shared/app/complete-workflow.js';
import { RegionRefusedError } from '../../../shared/domain/errors.js';
import type { TestRegions } from '../support/test-regions.js';
import { defaultGatePolicy } from '../../../shared/domain/gate/gate-policy.js';
import { at } from '../../support/fixtures.js';
import { useGateWorld } from '../support/gate-world.js';

const GRACE_SECONDS = defaultGatePolicy.extensionReportGraceSeconds;
const US = 'us-east-1';
const EU = 'eu-west-1';

/**
 * Review findings: a gate back from a long outage gave up re-sending without asking once, and showed
 * RUNNING forever; a cancel that reached regions after they completed left the job CANCELLED; a cancel
 * refused during an unconfirmed timeout called a job TIMED_OUT that then completed everywhere.
 * One gate and two real region managers on dynalite, one injected clock; events move only when a
 * test pumps them, so the test decides what is delivered, lost or late.
 */
describe('the gate after outages and late cancels (dynalite)', () => {
  const w = useGateWorld();

  /** Each region's one workflow completes (its worker's call to its own region). */
  async function completeInEveryRegion(jobId: string, token: (region: string) => string): Promise<void> {
    for (const region of w.managers.keys()) {
      const suffix = region === US ? 'us' : 'eu';
      await completeWorkflow(w.manager(region).deps, { jobId, workflowId: `wf-${suffix}`, workerId: `worker-${suffix}`, outcome: 'completed', token: token(region) });
    }
  }

  async function submitTwoRegions(jobId: string, timeoutSeconds = 60) {
    const submitted = await submitGateJob(w.gate, {
      jobId,
      timeoutSeconds,
      datacenters: {
        'us-east-1': { workflows: [{ workflowId: 'wf-us', workerId: 'worker-us' }] },
        'eu-west-1': { workflows: [{ workflowId: 'wf-eu', workerId: 'worker-eu' }] },
      },
    });
    const token = (region: string) => submitted.view.datacenters[region]?.workflows[0]?.token ?? '';
    return { token };
  }

  it('after a gate outage longer than the re-send give-up, the gate still learns how every region ended its global timeout', async () => {
    // Prepare: the global deadline passes (nobody heard from the workers); the gate declares and its
    // first broadcast reaches both regions, which end TIMED_OUT global_timeout.
    await submitTwoRegions('outage-give-up');
    await w.pump();
    await w.fireGate('outage-give-up', at(60 + GRACE_SECONDS));
    // Silent regions: the gate waits one more grace for their reports, then declares.
    await w.fireGate('outage-give-up', at(60 + 2 * GRACE_SECONDS));
    expect((await w.gateJob('outage-give-up')).globallyTimedOut).toBe(true);
    await w.gateToRegions();
    for (const region of w.managers.keys()) expect((await w.manager(region).getJob('outage-give-up')).status).toBe('TIMED_OUT');

    // Act: right then the gate goes down for 2 hours; the regions' final statuses reach it while it is
    // down and are lost (EventBridge's async retries of on-manager-report run out within minutes, as the
    // local cloud drops what arrives at a severed gate). The gate comes back; its overdue wake-up fires.
    await w.regionsToGate(true);
    w.clock.set(at(60 + 2 * GRACE_SECONDS + 2 * 3600));
    await sweepGateTimers(w.gate);
    await w.pump();
    // Anything else the gate does on its own later.
    w.clock.set(at(60 + 2 * GRACE_SECONDS + 3 * 3600));
    await sweepGateTimers(w.gate);
    await w.pump();

    // Assess: every region ended TIMED_OUT; the gate must say so, not RUNNING forever.
    const view = await getGateJob(w.gate, 'outage-give-up');
    expect(view.datacenters['us-east-1']?.status).toBe('timed_out');
    expect(view.datacenters['eu-west-1']?.status).toBe('timed_out');
    expect(view.status).toBe('TIMED_OUT');
  });

  it('a gate cancel that reaches regions only after each completed leaves the job COMPLETED, not CANCELLED', async () => {
    // Prepare: both workers complete; their final statuses are still on the way to the gate.
    const { token } = await submitTwoRegions('cancel-after-done');
    await w.pump();
    w.clock.set(at(5));
    await completeInEveryRegion('cancel-after-done', token);
    for (const region of w.managers.keys()) expect((await w.manager(region).getJob('cancel-after-done')).status).toBe('COMPLETED');

    // Act: the user cancels through the gate before it heard; then the final statuses arrive, and the
    // cancel reaches the regions, which answer with how they ended.
    await cancelGateJob(w.gate, 'cancel-after-done', 'no longer needed');
    await w.pump();

    // Assess: nothing was cancelled anywhere; every region COMPLETED.
    for (const region of w.managers.keys()) expect((await w.manager(region).getJob('cancel-after-done')).status).toBe('COMPLETED');
    const view = await getGateJob(w.gate, 'cancel-after-done');
    expect(view.datacenters['us-east-1']?.status).toBe('completed');
    expect(view.datacenters['eu-west-1']?.status).toBe('completed');
    expect(view.status).toBe('COMPLETED');
  });

  it('a cancel refused while a declared timeout is unconfirmed does not call a job TIMED_OUT that then completes everywhere', async () => {
    // Prepare: both workers complete, their final statuses lost; the gate declares its deadline.
    const { token } = await submitTwoRegions('cancel-unconfirmed');
    await w.pump();
    w.clock.set(at(5));
    await completeInEveryRegion('cancel-unconfirmed', token);
    await w.regionsToGate(true);
    await w.fireGate('cancel-unconfirmed', at(60 + GRACE_SECONDS));
    const before = await getGateJob(w.gate, 'cancel-unconfirmed');

    // Act
    const cancel = await cancelGateJob(w.gate, 'cancel-unconfirmed', undefined).then(
      (answer) => ({ answer }),
      (error: Error) => ({ error: error.message }),
    );
    await w.pump();
    const after = await getGateJob(w.gate, 'cancel-unconfirmed');

    // Assess: the gate showed RUNNING, the job ends COMPLETED everywhere; no answer may have said TIMED_OUT.
    expect(before.status).toBe('RUNNING');
    expect(after.status).toBe('COMPLETED');
    expect(JSON.stringify(cancel)).not.toContain('TIMED_OUT');
  });
});

// Review finding: a region ended unheard at the give-up that then accepted the job (a resent submit) was never told the decision.
describe('a region ended unheard when the re-sends give up (dynalite)', () => {
  const w = useGateWorld();

  it('a region that accepts the job after the give-up settled it still gets the decision (a cancel is never lost)', async () => {
    // Prepare: EU does not answer the submit; the client is told to resend the same body later
    const regions = w.gate.regions as TestRegions;
    regions.unreachable.add(EU);
    const body = {
      jobId: 'late-region',
      timeoutSeconds: 3600,
      datacenters: {
        [US]: { workflows: [{ workflowId: 'wf-us', workerId: 'worker-us' }] },
        [EU]: { workflows: [{ workflowId: 'wf-eu', workerId: 'worker-eu' }] },
      },
    };
    await submitGateJob(w.gate, body).catch(() => undefined);
    await w.pump();
    // The user cancels; US ends CANCELLED; the re-sends to EU run out (an hour's worth)
    await cancelGateJob(w.gate, 'late-region', 'no longer needed');
    await w.pump();
    const decided = await w.gateJob('late-region');
    const limit = Math.ceil(w.gate.policy.rebroadcastGiveUpSeconds / w.gate.policy.rebroadcastSeconds);
    await w.gate.gates.save({ ...decided, rebroadcasts: limit }, decided.version);
    await w.fireGate('late-region', decided.timerDueAt ?? w.clock.now());
    expect((await w.gateJob('late-region')).dcStatus[EU]).toBe('cancelled');

    // Act: EU is back; the client resends the same body, as the gate's 503 told it to; EU accepts the job
    regions.unreachable.delete(EU);
    await submitGateJob(w.gate, body).catch(() => undefined);
    await w.pump();

    // Assess: the gate says the job is cancelled everywhere, so EU must not run it on
    expect((await getGateJob(w.gate, 'late-region')).status).toBe('CANCELLED');
    expect((await w.manager(EU).getJob('late-region')).status).toBe('CANCELLED');
  });

  it('a gate submit answered 409 region_refused cancels the job in the regions that accepted it: a failed request leaves nothing running', async () => {
    // Prepare
    (w.gate.regions as TestRegions).refusing.add(EU);

    // Act
    const answer = submitGateJob(w.gate, {
      jobId: 'refused-1',
      timeoutSeconds: 600,
      datacenters: {
        [US]: { workflows: [{ workflowId: 'wf-us', workerId: 'worker-us' }] },
        [EU]: { workflows: [{ workflowId: 'wf-eu', workerId: 'worker-eu' }] },
      },
    });
    await expect(answer).rejects.toBeInstanceOf(RegionRefusedError);
    await w.pump();

    // Assess: contract "Nothing is changed by a request that fails": the caller got no tokens, so US must not run it on
    expect((await w.manager(US).getJob('refused-1')).status).toBe('CANCELLED');
    expect((await getGateJob(w.gate, 'refused-1')).status).toBe('FAILED');
  });
});
