import { describe, expect, it } from 'vitest';
import { DynamoJobStore } from '../../shared/adapters/aws/dynamo-job-store.js';
import { reportProgress } from '../../shared/app/report-progress.js';
import { submitJob } from '../../shared/app/submit-job.js';
import type { Workflow } from '../../shared/domain/job.js';
import { at } from '../support/fixtures.js';
import { tokenOf, useTestManager } from './support/test-manager.js';

/** The real store; the next workflow write first lets a competitor run to completion. */
class SlowWorkflowWrites extends DynamoJobStore {
  competitor: (() => Promise<unknown>) | undefined;

  override async putWorkflows(workflows: readonly Workflow[]): Promise<void> {
    const competitor = this.competitor;
    this.competitor = undefined;
    if (competitor) await competitor();
    return super.putWorkflows(workflows);
  }
}

/**
 * A submit slow between its job item and its workflow items, and the client's resend: the resend
 * finds the job, writes the missing workflows and answers 200 with the tokens; a worker reports with
 * them. The first submit's workflow writes, landing last, must not put the workflow back to new.
 */
describe('a submit resent while the first is still writing its workflows (dynalite)', () => {
  const m = useTestManager({ store: (doc, tableName) => new SlowWorkflowWrites(doc, tableName) });

  it("the first submit's late workflow writes keep the progress a worker reported after the resend's 200", async () => {
    // Prepare
    const body = { jobId: 'job-1', timeoutSeconds: 600, workflows: [{ workflowId: 'wf-1', workerId: 'worker-a' }] };
    const store = m.jobs as SlowWorkflowWrites;
    store.competitor = async () => {
      const resent = await submitJob(m.deps, body);
      expect(resent.created).toBe(false);
      m.clock.set(at(5));
      const tokens = Object.fromEntries(resent.view.workflows.map((w) => [w.workflowId, w.token]));
      await reportProgress(m.deps, { jobId: 'job-1', workflowId: 'wf-1', workerId: 'worker-a', progress: 0.5, token: tokenOf({ tokens }, 'wf-1') });
    };
    // Act
    const first = await submitJob(m.deps, body);
    // Assess
    expect(first.created).toBe(true);
    const workflow = await m.jobs.getWorkflow('job-1', 'wf-1');
    expect(workflow?.progress).toBe(0.5);
    expect(workflow?.lastProgressAt).toBe(at(5));
  });
});
