import { beforeEach, describe, expect, it } from 'vitest';
import { reportProgress } from '../../shared/app/report-progress.js';
import { at } from '../support/fixtures.js';
import { jobItemWrites, submit, tokenOf, useTestManager } from './support/test-manager.js';

// A 120 s stuck threshold coalesces job progress writes within 5 s of the stored lastProgressAt.
const body = { jobId: 'job-1', timeoutSeconds: 600, stuckThresholdSeconds: 120, workflows: [{ workflowId: 'wf-1', workerId: 'worker-a' }] };

describe('progress reports are coalesced: a burst costs one job write (dynalite)', () => {
  const m = useTestManager();
  let token: string;
  beforeEach(async () => {
    token = tokenOf(await submit(m, body), 'wf-1');
  });

  const report = (seconds: number) => {
    m.clock.set(at(seconds));
    // Each report advances (a higher value): a heartbeat never writes the job item.
    return reportProgress(m.deps, { jobId: 'job-1', workflowId: 'wf-1', workerId: 'worker-a', progress: seconds / 100, token });
  };

  it('10 reports within the coalescing window write the job item exactly once and bump its version once', async () => {
    // Prepare
    const before = await m.getJob('job-1');
    m.calls.length = 0;
    // Act: at 5.0 s, 5.4 s, …, 8.6 s
    for (let i = 0; i < 10; i++) await report(5 + i * 0.4);
    // Assess
    const after = await m.getJob('job-1');
    expect(jobItemWrites(m.calls)).toHaveLength(1);
    expect(after.version).toBe(before.version + 1);
    expect(after.tracking.lastProgressAt).toBe(at(5));
  });

  it('a report a full window after the stored progress writes again', async () => {
    // Prepare
    await report(5);
    m.calls.length = 0;
    // Act
    await report(10);
    // Assess
    expect(jobItemWrites(m.calls)).toHaveLength(1);
    expect((await m.getJob('job-1')).tracking.lastProgressAt).toBe(at(10));
  });

  it('a report inside the window of the submission time writes nothing to the job item', async () => {
    // Prepare
    m.calls.length = 0;
    // Act
    await report(4.9);
    // Assess
    expect(jobItemWrites(m.calls)).toEqual([]);
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
