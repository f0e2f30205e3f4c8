import type { DecisionContext } from './decision-context.js';
import { unchanged, type Decision } from './effects.js';
import { JobFinishedError, WorkflowFinishedError } from './errors.js';
import { finishJob } from './finish-job.js';
import { isTerminal, WorkflowMark, workflowCounts, type Job, type Workflow } from './job.js';

export type WorkflowOutcome = 'completed' | 'failed';

/**
 * Records a workflow's outcome. When every workflow has one, the job is COMPLETED (all completed)
 * or FAILED (any failed) and its timer is disarmed (seed 001 §10.4.9). A repeat of the same outcome
 * is a no-op, so a worker may retry.
 *
 * An outcome is progress of the job (seed 001 §10.6.3: every workflow state transition records
 * `last_progress`): it resets the stuck clock as an advance does, and the armed wake-up, now early,
 * finds the job not due and re-arms. It moves no deadline and spends no extension budget.
 */
export function completeWorkflow(job: Job, workflow: Workflow, outcome: WorkflowOutcome, ctx: DecisionContext): Decision<Job> {
  const mark = outcome === 'completed' ? WorkflowMark.completed : WorkflowMark.failed;
  const current = job.workflowMarks[workflow.index];
  if (current === mark) return unchanged(job, 'outcome_already_recorded');
  if (current !== WorkflowMark.active) {
    throw new WorkflowFinishedError(
      `Workflow '${workflow.workflowId}' already reported a different outcome; an outcome is final.`,
    );
  }
  if (isTerminal(job.status)) throw new JobFinishedError(job.jobId, job.status);
  const marks = job.workflowMarks.slice(0, workflow.index) + mark + job.workflowMarks.slice(workflow.index + 1);
  const next: Job = {
    ...job,
    workflowMarks: marks,
    tracking: { ...job.tracking, lastProgressAt: Math.max(job.tracking.lastProgressAt, ctx.now) },
  };
  const counts = workflowCounts(next);
  if (counts.active > 0) return { state: next, effects: [] };
  return finishJob(next, counts.failed > 0 ? 'FAILED' : 'COMPLETED', ctx);
}
