import { JobNotFoundError, WorkflowNotFoundError } from '../domain/errors.js';
import { belongsTo, isTerminal, WorkflowMark, type Job, type Workflow } from '../domain/job.js';
import { workflowFinished, type WorkflowAdvance } from '../domain/record-progress.js';
import type { EpochMs } from '../domain/time.js';
import type { ReportedWorkflowFields } from '../ports/job-store.js';
import type { ManagerDeps } from './manager-deps.js';
import { assertIssuedFor, type TokenClaim } from './workflow-tokens.js';

/**
 * A report decides on the job as it read it, then writes its workflow alone (no write can be
 * conditional on another item): the job may end, or the workflow get its outcome, in between. Read
 * again after the write, the job says whether the write landed on a workflow still running. If not,
 * the write is taken back, so the report changes nothing, and the report is answered as the job now
 * stands: a finished job's status (the worker is told to stop at once, not at its next call), or the
 * refusal a later report about a finished workflow gets. Returns the job as read after the write.
 * What is put back is what the write `replaced`: another report of the workflow may have landed its
 * write between this one's read and its write, found the job running and been answered so; it stands.
 * Unknown (its write was refused, or a retry of it refused after a lost answer), the workflow as this
 * report read it is put back, which the take-back's condition lets land only on this report's own values.
 */
export async function jobAfterReportWrite(
  deps: ManagerDeps,
  claim: TokenClaim,
  workflow: Workflow,
  write: { at: EpochMs; advance?: WorkflowAdvance; replaced?: ReportedWorkflowFields },
): Promise<Job> {
  const after = await deps.jobs.getJob(workflow.jobId);
  const stillRunning = after !== undefined && belongsTo(workflow, after) && !isTerminal(after.status) && after.workflowMarks[workflow.index] === WorkflowMark.active;
  if (stillRunning) return after;
  await deps.jobs.withdrawWorkflowWrite(workflow, write.at, write.advance, write.replaced ?? asRead(workflow));
  if (!after) throw new JobNotFoundError(workflow.jobId);
  assertIssuedFor(claim, after);
  if (!belongsTo(workflow, after)) throw new WorkflowNotFoundError(workflow.jobId, workflow.workflowId);
  if (!isTerminal(after.status)) throw workflowFinished(workflow);
  return after;
}

const asRead = ({ lastHeartbeatAt, lastProgressAt, progress, step }: Workflow): ReportedWorkflowFields => ({ lastHeartbeatAt, lastProgressAt, progress, step });
