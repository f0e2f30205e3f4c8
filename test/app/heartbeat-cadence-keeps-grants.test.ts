import { describe, expect, it } from 'vitest';
import { fireJobTimer } from '../../shared/app/fire-job-timer.js';
import { reportProgress } from '../../shared/app/report-progress.js';
import { requestExtension } from '../../shared/app/request-extension.js';
import { sdkHeartbeatMs } from '../../shared/sdk/workflow.js';
import { at } from '../support/fixtures.js';
import { submit, tokenOf, useTestManager, type TestManager } from './support/test-manager.js';

/**
 * A worker on the SDK that only heartbeats (a long step) must keep the grants it was given. AD-26
 * counts a silent worker failed 30 s after its health window (30 s plus its grants), and a worker
 * heard again after that gets a fresh budget while every job drops the old one's grants. The SDK once
 * beat every quarter stuck threshold whatever its length: 150 s for a 600 s threshold, so each beat
 * cost the worker its grants and its job the time it had been told.
 */
describe('the SDK heartbeat cadence keeps a quiet worker healthy, whatever the stuck threshold (dynalite)', () => {
  const m: TestManager = useTestManager();

  it.each([600, 3_600])('stuck threshold %i s: beats at the SDK cadence keep the grant until the extended deadline', async (stuckThresholdSeconds) => {
    // Prepare: a 300 s job; at 200 s the worker is granted 30 s (deadline 330 s), then works quietly.
    const job = await submit(m, { jobId: `quiet-${stuckThresholdSeconds}`, timeoutSeconds: 300, stuckThresholdSeconds, workflows: [{ workflowId: 'wf-1', workerId: 'worker-a' }] });
    const token = tokenOf(job, 'wf-1');
    const beatMs = sdkHeartbeatMs(stuckThresholdSeconds);
    m.clock.set(at(200));
    await reportProgress(m.deps, { jobId: job.jobId, workflowId: 'wf-1', workerId: 'worker-a', token, progress: 0.5 });
    expect(await requestExtension(m.deps, { workerId: 'worker-a', token, currentProgress: 0.5 })).toMatchObject({ granted: true, extensionSeconds: 30 });

    // Act: up to 329 s, the SDK's beats and the job's wake-ups, in time order
    let nextBeat = at(200) + beatMs;
    for (;;) {
      const timer = m.timers.current(job.jobId);
      const next = Math.min(nextBeat, timer?.dueAt ?? Infinity);
      if (next > at(329)) break;
      m.clock.set(next);
      if (timer && timer.dueAt === next) {
        await fireJobTimer(m.deps, timer);
      } else {
        await reportProgress(m.deps, { jobId: job.jobId, workflowId: 'wf-1', workerId: 'worker-a', token });
        nextBeat += beatMs;
      }
    }

    // Assess: still running on the 330 s deadline it was told, the grant held and the budget not replaced
    const stored = await m.getJob(job.jobId);
    expect({ status: stored.status, total: stored.tracking.totalExtensionsGranted }).toEqual({ status: 'RUNNING', total: 30 });
    expect((await m.jobs.getWorker('worker-a'))?.budget.epoch ?? 0).toBe(0);
  });
});
