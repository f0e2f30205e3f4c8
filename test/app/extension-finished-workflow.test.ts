import { describe, expect, it } from 'vitest';
import { completeWorkflow } from '../../shared/app/complete-workflow.js';
import { requestExtension } from '../../shared/app/request-extension.js';
import { scopedWorkerId } from '../../shared/domain/tenant.js';
import { at } from '../support/fixtures.js';
import { DynamoJobStore } from '../../shared/adapters/aws/dynamo-job-store.js';
import { sameTable, submit, tokenOf, useTestManager, type TestManager } from './support/test-manager.js';

/**
 * A review finding: "a stale token never changes state". A workflow whose outcome is recorded is over: its
 * progress call is refused (409 workflow_finished). Its token, sent to the extension route while the
 * job still runs (another worker's workflow is active), must change nothing either: the worker has
 * no active work, so no job is extended, and the fresh budget it got on completing its work (AD-26
 * `reset`) must stay fresh for its next job.
 */
describe('an extension asked with the token of a workflow that already reported its outcome (dynalite)', () => {
  const m = useTestManager();

  /** job-1 with worker-a (wf-1) and worker-b (wf-2); worker-a finishes its part. Returns wf-1's token. */
  async function workerAFinishedItsPart(): Promise<string> {
    const job1 = await submit(m, {
      jobId: 'job-1',
      timeoutSeconds: 300,
      stuckThresholdSeconds: 100_000,
      workflows: [
        { workflowId: 'wf-1', workerId: 'worker-a' },
        { workflowId: 'wf-2', workerId: 'worker-b' },
      ],
    });
    const stale = tokenOf(job1, 'wf-1');
    await completeWorkflow(m.deps, { jobId: 'job-1', workflowId: 'wf-1', workerId: 'worker-a', outcome: 'completed', token: stale });
    return stale;
  }

  it('is denied, saying why, and changes no budget and no job', async () => {
    // Prepare
    const stale = await workerAFinishedItsPart();
    const before = await m.jobs.getWorker(scopedWorkerId(undefined, 'worker-a'));
    const jobBefore = await m.getJob('job-1');
    // Act: the finished workflow's token asks for more time
    m.clock.set(at(10));
    const answer = await requestExtension(m.deps, { workerId: 'worker-a', token: stale, currentProgress: 0.5 });
    // Assess: nothing was extended, so nothing may be granted or spent
    const after = await m.jobs.getWorker(scopedWorkerId(undefined, 'worker-a'));
    expect((await m.getJob('job-1')).tracking.totalExtensionsGranted).toBe(jobBefore.tracking.totalExtensionsGranted);
    expect(after?.budget.count ?? 0).toBe(before?.budget.count ?? 0);
    expect(answer).toMatchObject({ granted: false, extensionSeconds: 0, denialReason: "Workflow 'wf-1' of this token has reported its outcome; ask with the token of a workflow still running." });
  });

  it("the worker's next job gets the fresh budget's first grant (30 s), not one halved by the stale call", async () => {
    // Prepare
    const stale = await workerAFinishedItsPart();
    m.clock.set(at(10));
    await requestExtension(m.deps, { workerId: 'worker-a', token: stale, currentProgress: 0.5 });
    // Act: worker-a's next job
    const job2 = await submit(m, { jobId: 'job-2', timeoutSeconds: 300, stuckThresholdSeconds: 100_000, workflows: [{ workflowId: 'wf-1', workerId: 'worker-a' }] });
    m.clock.set(at(20));
    const answer = await requestExtension(m.deps, { workerId: 'worker-a', token: tokenOf(job2, 'wf-1'), currentProgress: 0.1 });
    // Assess
    expect(answer).toMatchObject({ granted: true, extensionSeconds: 30, remainingExtensions: 4 });
    expect((await m.getJob('job-2')).tracking.totalExtensionsGranted).toBe(30);
  });
});

/** The `byWorker` index as DynamoDB's GSI can be right after a submit: not listing the new job yet. */
class LaggingWorkerIndex extends DynamoJobStore {
  constructor(doc: TestManager['doc'], tableName: string, private readonly unlisted: string) {
    super(doc, tableName);
  }
  override async findWorkOfWorker(workerId: string) {
    const found = await super.findWorkOfWorker(workerId);
    return { workflows: found.workflows.filter((w) => w.jobId !== this.unlisted), grants: found.grants };
  }
}

describe('an extension asked right after a submit, before the byWorker index lists the job (dynalite)', () => {
  const m = useTestManager();

  it('extends the job its token names: a grant is never answered without a job it extended', async () => {
    // Prepare
    const job = await submit(m, { jobId: 'job-1', timeoutSeconds: 300, stuckThresholdSeconds: 100_000, workflows: [{ workflowId: 'wf-1', workerId: 'worker-a' }] });
    const lagging = sameTable(m, new LaggingWorkerIndex(m.doc, m.tableName, 'job-1'));
    // Act
    m.clock.set(at(10));
    const answer = await requestExtension(lagging, { workerId: 'worker-a', token: tokenOf(job, 'wf-1'), currentProgress: 0.1 });
    // Assess
    expect(answer).toMatchObject({ granted: true, extensionSeconds: 30 });
    expect((await m.getJob('job-1')).tracking.totalExtensionsGranted).toBe(30);
  });
});
