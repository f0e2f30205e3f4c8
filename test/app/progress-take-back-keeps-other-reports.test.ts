import { describe, expect, it } from 'vitest';
import { cancelJob } from '../../shared/app/cancel-job.js';
import { END_RACE_MARGIN_MS, reportProgress } from '../../shared/app/report-progress.js';
import { at } from '../support/fixtures.js';
import { EndBeforeReportWrite } from './support/end-before-report-write.js';
import { submit, tokenOf, useTestManager } from './support/test-manager.js';

// A report whose job ended between its read and its write takes its write back (job-after-report-write.ts).
// It used to put back the workflow as IT had read it: a report of the same workflow that landed in
// between (a retry, a beat beside a report), found the job running and was answered so, lost its
// write too. The take-back must put back what its own write replaced, never undo another report.
// Each late report lands within the margin of its job's stuck deadline (63 s), where a writing call reads its job again.
const NEAR_STUCK_DEADLINE = at(63) - END_RACE_MARGIN_MS;

describe("a report's take-back leaves another report's write alone (dynalite)", () => {
  const m = useTestManager({ store: (doc, table) => new EndBeforeReportWrite(doc, table) });
  const store = () => m.jobs as EndBeforeReportWrite;

  it('a report answered on a running job keeps its step when an overtaken report of the same workflow is taken back', async () => {
    // Prepare: the workflow at step `download`; near its stuck deadline, two of its reports are in flight together.
    const job = await submit(m, { jobId: 'job-1', timeoutSeconds: 600, stuckThresholdSeconds: 60, workflows: [{ workflowId: 'wf-1', workerId: 'worker-a' }] });
    const report = (step: string) => reportProgress(m.deps, { jobId: 'job-1', workflowId: 'wf-1', workerId: 'worker-a', step, token: tokenOf(job, 'wf-1') });
    await report('download');
    m.clock.set(NEAR_STUCK_DEADLINE);
    // The other report (`parse`) lands whole, on a running job, and then the job is cancelled, all
    // between the late report's read and its write.
    let answered: Awaited<ReturnType<typeof reportProgress>> | undefined;
    store().beforeNextWorkflowWrite(async () => {
      answered = await report('parse');
      await cancelJob(m.deps, 'job-1', 'operator');
    });

    // Act: the late report (`upload`), read before either
    const late = await report('upload');

    // Assess: the late one is told to stop and changes nothing; the other one's write, answered as
    // accepted on a running job, stands.
    expect(answered).toMatchObject({ status: 'RUNNING', cancel: false, progressed: true });
    expect(late).toMatchObject({ status: 'CANCELLED', cancel: true, progressed: false });
    expect(await m.jobs.getWorkflow('job-1', 'wf-1')).toMatchObject({ step: 'parse', lastProgressAt: NEAR_STUCK_DEADLINE, lastHeartbeatAt: NEAR_STUCK_DEADLINE });
  });

  it('an advance written in two halves (the other report took its step first) puts back what each half replaced', async () => {
    // Prepare: progress 0.2 at step `download`, then the other report moves to `parse` and the job is
    // cancelled before the late report (`parse` with progress 0.5) writes: its whole write is refused
    // for the step, and its progress half lands alone.
    const job = await submit(m, { jobId: 'job-2', timeoutSeconds: 600, stuckThresholdSeconds: 60, workflows: [{ workflowId: 'wf-1', workerId: 'worker-a' }] });
    const report = (step: string, progress: number) =>
      reportProgress(m.deps, { jobId: 'job-2', workflowId: 'wf-1', workerId: 'worker-a', step, progress, token: tokenOf(job, 'wf-1') });
    await report('download', 0.2);
    store().beforeNextWorkflowWrite(async () => {
      await report('parse', 0.2);
      await cancelJob(m.deps, 'job-2', 'operator');
    });
    m.clock.set(NEAR_STUCK_DEADLINE);

    // Act: read at step `download`, its advance is the step and the progress
    const late = await report('parse', 0.5);

    // Assess: the other report's step and times stand, the late progress is gone
    expect(late).toMatchObject({ status: 'CANCELLED', cancel: true });
    expect(await m.jobs.getWorkflow('job-2', 'wf-1')).toMatchObject({ step: 'parse', progress: 0.2, lastProgressAt: NEAR_STUCK_DEADLINE, lastHeartbeatAt: NEAR_STUCK_DEADLINE });
  });
});
