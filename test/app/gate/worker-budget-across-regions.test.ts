import { describe, expect, it } from 'vitest';
import { fireJobTimer } from '../../../shared/app/fire-job-timer.js';
import { submitGateJob } from '../../../shared/app/gate/submit-gate-job.js';
import { reportProgress } from '../../../shared/app/report-progress.js';
import { requestExtension } from '../../../shared/app/request-extension.js';
import { effectiveDeadline } from '../../../shared/domain/deadlines.js';
import { globalDeadline } from '../../../shared/domain/gate/global-deadline.js';
import { at } from '../../support/fixtures.js';
import { useGateWorld } from '../support/gate-world.js';

const US = 'us-east-1';
const EU = 'eu-west-1';
const FULL_BUDGET = 30 + 15 + 7.5 + 3.75 + 1.875;

/**
 * Gate × AD-26: one worker
 * (same id, same tenant) with a workflow of the same gate job in two regions has one AD-26 budget per
 * region (each manager keeps its own tracker, as seed 004 does), yet it can add at most one budget,
 * 58.125 s, to any deadline of the job: each region's and the gate's global one (the largest regional
 * total, not the sum).
 */
describe('one worker extending the same gate job in two regions (dynalite)', () => {
  const w = useGateWorld();

  it("adds at most 58.125 s to the job's global deadline, though each region grants it its own five", async () => {
    const submitted = await submitGateJob(w.gate, {
      jobId: 'two-region-worker',
      timeoutSeconds: 300,
      datacenters: {
        [US]: { workflows: [{ workflowId: 'wf-us', workerId: 'worker-a' }] },
        [EU]: { workflows: [{ workflowId: 'wf-eu', workerId: 'worker-a' }] },
      },
    });
    const token = (region: string) => submitted.view.datacenters[region]?.workflows[0]?.token ?? '';
    await w.pump();

    // Act: every 20 s the worker reports progress in both regions and asks each for an extension.
    const answers: Record<string, boolean[]> = { [US]: [], [EU]: [] };
    for (let i = 1; i <= 6; i++) {
      w.clock.set(at(20 * i));
      for (const region of [US, EU]) {
        const m = w.manager(region);
        const workflowId = region === US ? 'wf-us' : 'wf-eu';
        await reportProgress(m.deps, { jobId: 'two-region-worker', workflowId, workerId: 'worker-a', token: token(region), progress: i / 10 });
        const answer = await requestExtension(m.deps, { workerId: 'worker-a', token: token(region), currentProgress: i / 10 });
        answers[region]?.push(answer.granted);
      }
      await w.pump();
    }
    // A periodic report from each region carries the totals (the immediate ones did too).
    for (const region of [US, EU]) {
      const m = w.manager(region);
      const timer = m.timers.expectArmed('two-region-worker');
      w.clock.set(Math.max(w.clock.now(), timer.dueAt));
      await fireJobTimer(m.deps, timer);
    }
    await w.pump();

    // Assess
    expect(answers).toEqual({ [US]: [true, true, true, true, true, false], [EU]: [true, true, true, true, true, false] });
    for (const region of [US, EU]) {
      expect(effectiveDeadline((await w.manager(region).getJob('two-region-worker')).tracking)).toBe(at(300 + FULL_BUDGET));
    }
    const gateJob = await w.gateJob('two-region-worker');
    expect(globalDeadline(gateJob)).toBe(at(300 + FULL_BUDGET));
  });
});
