import { describe, expect, it } from 'vitest';
import { fireJobTimer } from '../../../shared/app/fire-job-timer.js';
import { submitGateJob } from '../../../shared/app/gate/submit-gate-job.js';
import { requestExtension } from '../../../shared/app/request-extension.js';
import { effectiveDeadline } from '../../../shared/domain/deadlines.js';
import { at } from '../../support/fixtures.js';
import { useGateWorld } from '../support/gate-world.js';

const EU = 'eu-west-1';

/**
 * Gate × AD-26: a gate-coordinated region that has decided and reported its local timeout
 * (seed 000 Part 4: "Send Timeout Report to Gate, locally_timed_out = True … Wait for Gate Decision")
 * is owed that timeout: the gate declares a global timeout at once on any region's report (condition 2),
 * and failing that the manager falls back on its own. A grant can no longer keep such a job alive.
 */
describe('an extension asked after the region reported its local timeout (dynalite)', () => {
  const w = useGateWorld();

  it('a job whose region already reported a local (stuck) timeout is not answered granted: true, nor charged to the budget', async () => {
    // Prepare: one region, 300 s job, 20 s stuck threshold (stuck deadline 21 s with the 1 s window).
    const submitted = await submitGateJob(w.gate, {
      jobId: 'stuck-then-ext',
      timeoutSeconds: 300,
      stuckThresholdSeconds: 20,
      datacenters: { [EU]: { workflows: [{ workflowId: 'wf-1', workerId: 'worker-a' }] } },
    });
    const token = submitted.view.datacenters[EU]?.workflows[0]?.token ?? '';
    await w.pump();
    const eu = w.manager(EU);
    // The region's wake-ups: reports at 10 s and 20 s, then at 21 s the stuck deadline: the manager
    // reports its local timeout and waits for the gate (its report is on the way).
    while (!(await eu.getJob('stuck-then-ext')).tracking.locallyTimedOut) {
      const timer = eu.timers.expectArmed('stuck-then-ext');
      w.clock.set(timer.dueAt);
      await fireJobTimer(eu.deps, timer);
    }
    expect(w.clock.now()).toBe(at(21));

    // Act: at 21.5 s, before the gate's decision arrives, the worker asks for an extension, showing progress.
    w.clock.set(at(21.5));
    const answer = await requestExtension(eu.deps, { workerId: 'worker-a', token, currentProgress: 0.5 });
    const afterGrant = await eu.getJob('stuck-then-ext');
    await w.pump();
    const ended = await eu.getJob('stuck-then-ext');

    // Assess: the region's decision stands (it was reported; the gate declares on it at once), so
    // whatever the answer, a grant must not be "granted" for time the job will never get, and the
    // budget must not pay for it (docs/api.md: "a grant is answered only with a job it extended, and a
    // denial spends nothing"; apply-grant.ts: "the worker must not be told of time no job gives").
    expect(afterGrant.tracking.locallyTimedOut).toBe(true);
    expect(effectiveDeadline(afterGrant.tracking)).toBe(at(300));
    expect(ended).toMatchObject({ status: 'TIMED_OUT', finishedAt: at(21.5), tracking: { timeoutReason: 'global_timeout' } });
    expect({ granted: answer.granted, remainingExtensions: answer.remainingExtensions }).toEqual({ granted: false, remainingExtensions: 5 });
    expect(answer.denialReason).toMatch(/is being timed out \(past its deadline, or reported stuck or timed out to the gate\)/);
  });

  it("the worker's other job takes the grant; the job that reported its timeout keeps its deadline", async () => {
    // Prepare: the same worker in two jobs of the gate; the first has a 20 s stuck threshold, the second 300 s.
    const ids = ['reported-stuck', 'still-running'];
    const tokens: string[] = [];
    for (const [i, jobId] of ids.entries()) {
      const submitted = await submitGateJob(w.gate, {
        jobId,
        timeoutSeconds: 300,
        stuckThresholdSeconds: i === 0 ? 20 : 300,
        datacenters: { [EU]: { workflows: [{ workflowId: 'wf-1', workerId: 'worker-a' }] } },
      });
      tokens.push(submitted.view.datacenters[EU]?.workflows[0]?.token ?? '');
    }
    await w.pump();
    const eu = w.manager(EU);
    while (!(await eu.getJob('reported-stuck')).tracking.locallyTimedOut) {
      const timer = eu.timers.expectArmed('reported-stuck');
      w.clock.set(timer.dueAt);
      await fireJobTimer(eu.deps, timer);
    }

    // Act: the worker asks with the running job's token, before the gate's decision arrives.
    w.clock.set(at(21.5));
    const answer = await requestExtension(eu.deps, { workerId: 'worker-a', token: tokens[1] ?? '', currentProgress: 0.5 });

    // Assess: granted for the running job only.
    expect(answer).toMatchObject({ granted: true, extensionSeconds: 30 });
    expect(effectiveDeadline((await eu.getJob('still-running')).tracking)).toBe(at(330));
    expect(effectiveDeadline((await eu.getJob('reported-stuck')).tracking)).toBe(at(300));
  });
});
