import { progressCoalesceMs } from './deadlines.js';
import { WorkflowFinishedError } from './errors.js';
import { isTerminal, WorkflowMark, type Job, type Workflow } from './job.js';
import type { EpochMs } from './time.js';

/** What a worker's progress call carries about its workflow; both optional. */
export interface ProgressReport {
  /** 0–1; only a value above the workflow's highest one is progress. */
  progress?: number;
  /** Opaque: the worker changes it when it finishes something. */
  step?: string;
}

/** The values of a report that advanced the workflow: only these are written. */
export type WorkflowAdvance = ProgressReport;

/**
 * Seed 000, problem 4 ("worker heartbeat OK but workflow stuck"): a call advances its workflow only
 * with a progress value above the highest one so far (none counts as 0) or with another step.
 * Anything else is a heartbeat, which keeps the worker healthy but never the job.
 */
export function advanceOf(workflow: Workflow, report: ProgressReport): WorkflowAdvance | undefined {
  const progressed = report.progress !== undefined && report.progress > (workflow.progress ?? 0);
  const stepped = report.step !== undefined && report.step !== workflow.step;
  if (!progressed && !stepped) return undefined;
  return { ...(progressed ? { progress: report.progress } : {}), ...(stepped ? { step: report.step } : {}) };
}

/** Which writes a progress call needs. */
export interface ProgressWrites {
  /**
   * The workflow's new values and `lastProgressAt`, written on every advance, never coalesced: the
   * next call compares with them, so an advance inside the coalescing window is not lost.
   */
  advance?: WorkflowAdvance;
  /** Job-level `lastProgressAt` (resets the stuck clock): an advance, coalesced. */
  job: boolean;
  /** Only the workflow's `lastHeartbeatAt` (pending → running on the first call), coalesced. */
  heartbeat: boolean;
}

const NOTHING: ProgressWrites = { job: false, heartbeat: false };

export function progressWrites(job: Job, workflow: Workflow, report: ProgressReport, now: EpochMs): ProgressWrites {
  if (isTerminal(job.status)) return NOTHING;
  if (job.workflowMarks[workflow.index] !== WorkflowMark.active) {
    throw new WorkflowFinishedError(
      `Workflow '${workflow.workflowId}' has already reported its outcome; progress for it is no longer accepted.`,
    );
  }
  const windowMs = progressCoalesceMs(job.tracking.stuckThresholdSeconds);
  const advance = advanceOf(workflow, report);
  if (advance) return { advance, job: now - job.tracking.lastProgressAt >= windowMs, heartbeat: false };
  const lastHeardAt = Math.max(workflow.lastHeartbeatAt ?? -Infinity, workflow.lastProgressAt ?? -Infinity);
  return { job: false, heartbeat: now - lastHeardAt >= windowMs };
}
