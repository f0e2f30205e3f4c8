import { describe, expect, it } from 'vitest';
import { DynamoJobStore } from '../../shared/adapters/aws/dynamo-job-store.js';
import { completeWorkflow } from '../../shared/app/complete-workflow.js';
import { fireJobTimer } from '../../shared/app/fire-job-timer.js';
import { getJob } from '../../shared/app/get-job.js';
import { reportProgress } from '../../shared/app/report-progress.js';
import { stuckDeadline } from '../../shared/domain/deadlines.js';
import type { WorkflowAdvance } from '../../shared/domain/record-progress.js';
import type { EpochMs } from '../../shared/domain/time.js';
import { submit, tokenOf, useTestManager } from './support/test-manager.js';

/** The real store, with a competitor that runs to completion just before the next advance is written. */
class LateAdvanceStore extends DynamoJobStore {
  beforeAdvance: (() => Promise<unknown>) | undefined;
  override async recordWorkflowAdvance(jobId: string, workflowId: string, at: EpochMs, advance: WorkflowAdvance) {
    const competitor = this.beforeAdvance;
    this.beforeAdvance = undefined;
    if (competitor) await competitor();
    return super.recordWorkflowAdvance(jobId, workflowId, at, advance);
  }
}

// Review: a progress call reads the job RUNNING; before its workflow write lands the job ends (here,
// timed out as stuck by a wake-up that read the workflows before the write). Reports write only
// their workflow (single-item writes), so the write still lands: the finished job must not show
// progress its decision never saw. (What the call answers, and that it keeps nothing, is
// progress-racing-the-end.test.ts.)
describe('a progress write that lands after its job ended (dynalite)', () => {
  const m = useTestManager({ store: (doc, table) => new LateAdvanceStore(doc, table) });

  it('the stuck wake-up wins: GET shows the job as it ended, on the clock its verdict was decided on', async () => {
    // Prepare: one silent workflow, at its stuck deadline.
    const job = await submit(m, { jobId: 'job-1', timeoutSeconds: 600, stuckThresholdSeconds: 60, workflows: [{ workflowId: 'wf-1', workerId: 'worker-a' }] });
    const stored = await m.getJob('job-1');
    m.clock.set(stuckDeadline(stored.tracking));
    const store = m.jobs as LateAdvanceStore;
    store.beforeAdvance = () => fireJobTimer(m.deps, m.timers.expectArmed('job-1'));
    // Act: the report reads RUNNING; the wake-up times the job out before its write lands.
    await reportProgress(m.deps, { jobId: 'job-1', workflowId: 'wf-1', workerId: 'worker-a', progress: 0.5, token: tokenOf(job, 'wf-1') });
    // Assess
    const ended = await m.getJob('job-1');
    expect(ended.status).toBe('TIMED_OUT');
    expect(ended.tracking.timeoutReason).toBe('stuck');
    const view = await getJob(m.deps, 'job-1', ended.tenant);
    // The job's stuck verdict stands on the clock it was decided on.
    expect(Date.parse(view.timeoutTracking.lastProgressAt)).toBe(ended.tracking.lastProgressAt);
    expect(Date.parse(view.timeoutTracking.lastProgressAt) + 60_000).toBeLessThanOrEqual(ended.finishedAt ?? 0);
  });

  it('the last completion wins: GET shows no progress after the job ended', async () => {
    // Prepare: two workflows of one worker; wf-1 reports while wf-2, the last, completes.
    const job = await submit(m, {
      jobId: 'job-2', timeoutSeconds: 600, stuckThresholdSeconds: 60,
      workflows: [{ workflowId: 'wf-1', workerId: 'worker-a' }, { workflowId: 'wf-2', workerId: 'worker-a' }],
    });
    await completeWorkflow(m.deps, { jobId: 'job-2', workflowId: 'wf-1', workerId: 'worker-a', outcome: 'completed', token: tokenOf(job, 'wf-1') });
    m.clock.set(m.clock.now() + 10_000);
    const store = m.jobs as LateAdvanceStore;
    // The completion's Lambda read its clock a moment before the report's did.
    const reportAt = m.clock.now();
    store.beforeAdvance = async () => {
      m.clock.set(reportAt - 500);
      await completeWorkflow(m.deps, { jobId: 'job-2', workflowId: 'wf-2', workerId: 'worker-a', outcome: 'completed', token: tokenOf(job, 'wf-2') });
      m.clock.set(reportAt);
    };
    // Act: wf-2's own report races its completion (a worker's retry of a report sent before it finished).
    await reportProgress(m.deps, { jobId: 'job-2', workflowId: 'wf-2', workerId: 'worker-a', progress: 0.9, token: tokenOf(job, 'wf-2') });
    // Assess
    const ended = await m.getJob('job-2');
    expect(ended.status).toBe('COMPLETED');
    // No progress after the job's end.
    const view = await getJob(m.deps, 'job-2', ended.tenant);
    expect(Date.parse(view.timeoutTracking.lastProgressAt)).toBeLessThanOrEqual(ended.finishedAt ?? 0);
  });
});
