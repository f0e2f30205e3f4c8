import { beforeEach, describe, expect, it } from 'vitest';
import { fireJobTimer } from '../../shared/app/fire-job-timer.js';
import { getJob } from '../../shared/app/get-job.js';
import { reportProgress } from '../../shared/app/report-progress.js';
import { at } from '../support/fixtures.js';
import { submit, tokenOf, useTestManager, writesByItem } from './support/test-manager.js';

// A 120 s stuck threshold: heartbeats, and rises in progress, are coalesced within a 5 s window.
const body = { jobId: 'job-1', timeoutSeconds: 600, stuckThresholdSeconds: 120, workflows: [{ workflowId: 'wf-1', workerId: 'worker-a' }] };

describe('a report writes at most one item, its workflow (dynalite)', () => {
  const m = useTestManager();
  let token: string;
  beforeEach(async () => {
    token = tokenOf(await submit(m, body), 'wf-1');
  });

  const report = (seconds: number) => {
    m.clock.set(at(seconds));
    // Each report advances (a higher value).
    return reportProgress(m.deps, { jobId: 'job-1', workflowId: 'wf-1', workerId: 'worker-a', progress: seconds / 100, token });
  };

  it('after the first call, rises in progress write their workflow item once per window; the job item never, the worker item at most once a second', async () => {
    // Prepare: the first call (1 s) creates the worker item and takes the first history sample
    await report(1);
    const before = await m.getJob('job-1');
    m.calls.length = 0;
    // Act: at 5.0 s, 5.4 s, …, 8.6 s (this manager keeps no history: samples are tested with the history store)
    for (let i = 0; i < 10; i++) await report(5 + i * 0.4);
    // Assess: the first rise a window after the stored clock (6.2 s) is written, the others are not
    const writes = writesByItem(m.calls);
    expect(writes.filter((item) => item === 'WF')).toEqual(['WF']);
    expect(writes.filter((item) => item !== 'WF' && item !== 'WORKER')).toEqual([]);
    expect(writes.filter((item) => item === 'WORKER').length).toBeLessThanOrEqual(4);
    const after = await m.getJob('job-1');
    expect(after.version).toBe(before.version);
    expect(await m.jobs.latestWorkflowProgressAt('job-1', after.incarnation)).toBe(at(6.2));
  });

  it("the job's view shows its last progress from the workflows, though no report wrote the job item", async () => {
    // Prepare
    await report(1);
    // Act
    await report(42);
    // Assess
    const view = await getJob(m.deps, 'job-1');
    expect(view.timeoutTracking.lastProgressAt).toBe(new Date(at(42)).toISOString());
    expect((await m.getJob('job-1')).tracking.lastProgressAt).toBeLessThan(at(42));
  });

  it("the job's timer reads the workflows: a wake-up at the submitted stuck deadline re-arms from the last advance", async () => {
    // Prepare
    await report(1);
    await report(100);
    const job = await m.getJob('job-1');
    const dueAt = job.timerDueAt ?? 0;
    // Act: the wake-up armed at submission (0 + 120 s + 5 s window)
    m.clock.set(dueAt);
    await fireJobTimer(m.deps, { scope: 'job', jobId: 'job-1', fenceToken: job.tracking.fenceToken, dueAt });
    // Assess
    const after = await m.getJob('job-1');
    expect(dueAt).toBe(at(125));
    expect(after.status).toBe('RUNNING');
    expect(after.tracking.lastProgressAt).toBe(at(100));
    expect(after.timerDueAt).toBe(at(225));
  });

  it('every report answers with the job status and cancel:false while the job runs', async () => {
    // Prepare
    const reports = [5, 5.1];
    // Act
    const answers = [];
    for (const seconds of reports) answers.push(await report(seconds));
    // Assess
    expect(answers.map((a) => [a.status, a.cancel])).toEqual([
      ['RUNNING', false],
      ['RUNNING', false],
    ]);
  });
});
