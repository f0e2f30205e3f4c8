import { describe, expect, it } from 'vitest';
import { cancelJob } from '../../shared/app/cancel-job.js';
import { completeWorkflow } from '../../shared/app/complete-workflow.js';
import { fireJobTimer } from '../../shared/app/fire-job-timer.js';
import { END_RACE_MARGIN_MS, reportProgress } from '../../shared/app/report-progress.js';
import { WorkflowFinishedError } from '../../shared/domain/errors.js';
import { at } from '../support/fixtures.js';
import { EndBeforeReportWrite } from './support/end-before-report-write.js';
import { submit, tokenOf, useTestManager } from './support/test-manager.js';

// A progress report reads the job RUNNING and decides to write its workflow; before the write lands
// the job ends (a cancel, a timeout) or the workflow gets its outcome. Near the first moment a
// wake-up could end the job (END_RACE_MARGIN_MS before its stuck deadline or its own timeout) the
// call reads the job again after its write: the answer says `cancel: true` with the job's status
// (this is how a worker learns to stop) and the write is taken back. Farther from it only an end
// nobody's clock brings can overtake the call, which reads nothing the call writes: the call is
// answered as it was before that end, and the worker's next call hears it.
describe('a progress report whose job ends between its read and its write (dynalite)', () => {
  const m = useTestManager({ store: (doc, table) => new EndBeforeReportWrite(doc, table) });
  const store = () => m.jobs as EndBeforeReportWrite;

  /** Runs `end` just before the report's workflow write; returns the table as the end left it. */
  function endBeforeTheWrite(end: () => Promise<unknown>): () => unknown[] {
    let asEnded: unknown[] = [];
    store().beforeNextWorkflowWrite(end, async () => (asEnded = await m.snapshot()));
    return () => asEnded;
  }

  it('a cancel overtakes an advance near its stuck deadline: the answer says cancel with CANCELLED, and the advance is not kept', async () => {
    // Prepare: the workflow reported once (so its write carries the worker's health), then a new step within the margin of its stuck deadline (63 s).
    const job = await submit(m, { jobId: 'job-1', timeoutSeconds: 600, stuckThresholdSeconds: 60, workflows: [{ workflowId: 'wf-1', workerId: 'worker-a' }] });
    const report = (step: string) => reportProgress(m.deps, { jobId: 'job-1', workflowId: 'wf-1', workerId: 'worker-a', step, progress: 0.2, token: tokenOf(job, 'wf-1') });
    await report('download');
    m.clock.set(at(63) - END_RACE_MARGIN_MS);
    const asEnded = endBeforeTheWrite(() => cancelJob(m.deps, 'job-1', 'operator'));
    // Act
    const answer = await report('parse');
    // Assess
    expect(answer).toMatchObject({ status: 'CANCELLED', cancel: true, progressed: false });
    expect(answer).not.toHaveProperty('stuckAt');
    expect(await m.snapshot()).toEqual(asEnded());
    expect((await m.jobs.getWorkflow('job-1', 'wf-1'))?.step).toBe('download');
  });

  it('a cancel overtakes an advance far from any wake-up: answered as before the cancel, which reads nothing the call wrote; the next call is told to stop', async () => {
    // Prepare: stuck deadline at 63 s, the call at 30 s.
    const job = await submit(m, { jobId: 'job-6', timeoutSeconds: 600, stuckThresholdSeconds: 60, workflows: [{ workflowId: 'wf-1', workerId: 'worker-a' }] });
    const report = (step: string) => reportProgress(m.deps, { jobId: 'job-6', workflowId: 'wf-1', workerId: 'worker-a', step, progress: 0.2, token: tokenOf(job, 'wf-1') });
    await report('download');
    m.clock.set(at(30));
    endBeforeTheWrite(() => cancelJob(m.deps, 'job-6', 'operator'));
    // Act
    const raced = await report('parse');
    const next = await report('parse');
    // Assess: the cancel stands as decided; the raced call was ordered before it
    expect(raced).toMatchObject({ status: 'RUNNING', cancel: false, progressed: true });
    expect(next).toMatchObject({ status: 'CANCELLED', cancel: true });
    expect((await m.getJob('job-6')).status).toBe('CANCELLED');
  });

  it("the deadline's wake-up overtakes a workflow's first call (a heartbeat): cancel with TIMED_OUT, no health written", async () => {
    // Prepare: a silent workflow at its job's deadline.
    const job = await submit(m, { jobId: 'job-2', timeoutSeconds: 60, stuckThresholdSeconds: 600, workflows: [{ workflowId: 'wf-1', workerId: 'worker-a' }] });
    m.clock.set(at(60));
    const asEnded = endBeforeTheWrite(() => fireJobTimer(m.deps, m.timers.expectArmed('job-2')));
    // Act
    const answer = await reportProgress(m.deps, { jobId: 'job-2', workflowId: 'wf-1', workerId: 'worker-a', token: tokenOf(job, 'wf-1') });
    // Assess
    expect(answer).toMatchObject({ status: 'TIMED_OUT', cancel: true });
    expect(await m.snapshot()).toEqual(asEnded());
    expect(await m.jobs.getWorker('worker-a')).toBeUndefined();
  });

  it('the stuck wake-up overtakes the advance that would have saved the job: cancel with TIMED_OUT', async () => {
    // Prepare: one silent workflow, at its stuck deadline.
    const job = await submit(m, { jobId: 'job-3', timeoutSeconds: 600, stuckThresholdSeconds: 60, workflows: [{ workflowId: 'wf-1', workerId: 'worker-a' }] });
    await reportProgress(m.deps, { jobId: 'job-3', workflowId: 'wf-1', workerId: 'worker-a', token: tokenOf(job, 'wf-1') });
    m.clock.set(m.timers.expectArmed('job-3').dueAt);
    const asEnded = endBeforeTheWrite(() => fireJobTimer(m.deps, m.timers.expectArmed('job-3')));
    // Act
    const answer = await reportProgress(m.deps, { jobId: 'job-3', workflowId: 'wf-1', workerId: 'worker-a', progress: 0.5, token: tokenOf(job, 'wf-1') });
    // Assess
    expect(answer).toMatchObject({ status: 'TIMED_OUT', cancel: true, progressed: false });
    expect((await m.getJob('job-3')).tracking.timeoutReason).toBe('stuck');
    expect(await m.snapshot()).toEqual(asEnded());
  });

  it('its own completion overtakes a report of a workflow (the job runs on): refused as finished, nothing kept', async () => {
    // Prepare: two workflows; wf-1 has reported before.
    const job = await submit(m, {
      jobId: 'job-4', timeoutSeconds: 600, stuckThresholdSeconds: 60,
      workflows: [{ workflowId: 'wf-1', workerId: 'worker-a' }, { workflowId: 'wf-2', workerId: 'worker-b' }],
    });
    const report = (progress: number) => reportProgress(m.deps, { jobId: 'job-4', workflowId: 'wf-1', workerId: 'worker-a', progress, token: tokenOf(job, 'wf-1') });
    await report(0.4);
    m.clock.set(at(63) - END_RACE_MARGIN_MS);
    const asEnded = endBeforeTheWrite(() => completeWorkflow(m.deps, { jobId: 'job-4', workflowId: 'wf-1', workerId: 'worker-a', outcome: 'completed', token: tokenOf(job, 'wf-1') }));
    // Act: a report sent before the completion, answered after it (as a retry is).
    const refused = report(0.9);
    // Assess: the answer a later report gets; the finished workflow keeps what its outcome saw.
    await expect(refused).rejects.toBeInstanceOf(WorkflowFinishedError);
    expect((await m.getJob('job-4')).status).toBe('RUNNING');
    expect(await m.snapshot()).toEqual(asEnded());
  });

  it('an end that comes after the write leaves the report standing: answered as the job now is', async () => {
    // Prepare: another workflow's progress is the competitor: nothing ends.
    const job = await submit(m, {
      jobId: 'job-5', timeoutSeconds: 600,
      workflows: [{ workflowId: 'wf-1', workerId: 'worker-a' }, { workflowId: 'wf-2', workerId: 'worker-b' }],
    });
    endBeforeTheWrite(() => reportProgress(m.deps, { jobId: 'job-5', workflowId: 'wf-2', workerId: 'worker-b', progress: 0.1, token: tokenOf(job, 'wf-2') }));
    // Act
    const answer = await reportProgress(m.deps, { jobId: 'job-5', workflowId: 'wf-1', workerId: 'worker-a', progress: 0.3, token: tokenOf(job, 'wf-1') });
    // Assess
    expect(answer).toMatchObject({ status: 'RUNNING', cancel: false, progressed: true });
    expect((await m.jobs.getWorkflow('job-5', 'wf-1'))?.progress).toBe(0.3);
    expect(await m.jobs.getWorker('worker-a')).toBeDefined();
  });
});
