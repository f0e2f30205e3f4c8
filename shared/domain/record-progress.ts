import { progressCoalesceMs } from './deadlines.js';
import { WorkflowFinishedError } from './errors.js';
import { isTerminal, WorkflowMark, type Job, type Workflow } from './job.js';
import type { EpochMs } from './time.js';

/** Which coalesced writes a progress report needs. None while the stored times are fresh enough. */
export interface ProgressWrites {
  /** Job-level `lastProgressAt` (resets the stuck clock). */
  job: boolean;
  /** Workflow-level `lastProgressAt` (pending → running on the first one). */
  workflow: boolean;
}

export function progressWrites(job: Job, workflow: Workflow, now: EpochMs): ProgressWrites {
  if (isTerminal(job.status)) return { job: false, workflow: false };
  if (job.workflowMarks[workflow.index] !== WorkflowMark.active) {
    throw new WorkflowFinishedError(
      `Workflow '${workflow.workflowId}' has already reported its outcome; progress for it is no longer accepted.`,
    );
  }
  const windowMs = progressCoalesceMs(job.tracking.stuckThresholdSeconds);
  return {
    job: now - job.tracking.lastProgressAt >= windowMs,
    workflow: workflow.lastProgressAt === undefined || now - workflow.lastProgressAt >= windowMs,
  };
}
