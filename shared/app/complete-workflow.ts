import { WorkflowNotFoundError } from '../domain/errors.js';
import { completeWorkflow as decideCompletion, type WorkflowOutcome } from '../domain/complete-workflow.js';
import { belongsTo, workflowState } from '../domain/job.js';
import { decideJob } from './job-state-store.js';
import { decisionContext, type ManagerDeps } from './manager-deps.js';
import { resetBudgetWhenIdle } from './reset-budget-when-idle.js';
import { assertIssuedFor } from './workflow-tokens.js';

export interface CompleteInput {
  jobId: string;
  workflowId: string;
  workerId: string;
  outcome: WorkflowOutcome;
  token: string;
}

export async function completeWorkflow(deps: ManagerDeps, input: CompleteInput) {
  const claim = await deps.tokens.verify(input.token, input.workerId, { jobId: input.jobId, workflowId: input.workflowId });
  const workflow = await deps.jobs.getWorkflow(input.jobId, input.workflowId);
  if (!workflow) throw new WorkflowNotFoundError(input.jobId, input.workflowId);
  const { state: job } = await decideJob(deps, input.jobId, (current) => {
    assertIssuedFor(claim, current);
    if (!belongsTo(workflow, current)) throw new WorkflowNotFoundError(input.jobId, input.workflowId);
    return decideCompletion(current, workflow, input.outcome, decisionContext(deps));
  });
  // Its outcome is final: the workflow leaves the worker's index, and an idle worker's budget resets.
  await deps.jobs.leaveWorkerIndex([workflow]);
  await resetBudgetWhenIdle(deps, claim.scopedWorkerId, job);
  return { jobId: job.jobId, workflowId: workflow.workflowId, state: workflowState(job, workflow), jobStatus: job.status };
}
