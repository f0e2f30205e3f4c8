import { progressCoalesceMs } from './deadlines.js';
import { sampleBucket } from './history/history-entry.js';
import { WorkflowFinishedError } from './errors.js';
import { belongsTo, isTerminal, WorkflowMark, workflowCounts, type Job, type Workflow } from './job.js';
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

/**
 * Which writes a progress call needs: at most the workflow's own item (the one item a report must
 * touch), and rarely a history sample. The job's stuck clock is not written here: a decision that
 * depends on it reads the workflows' `lastProgressAt` (`withWorkflowProgress`).
 */
export interface ProgressWrites {
  /** The workflow's new values and `lastProgressAt`: a new step, or a rise a window or more after the stored stuck clock. */
  advance?: WorkflowAdvance;
  /**
   * A rise in `progress` (no new step) within the coalescing window of the stored stuck clock:
   * answered as progress, not written. The stuck deadline (`stuckDeadline`) gives the stored clock
   * one window of slack, so no wake-up finds the job stuck before this advance + the threshold.
   */
  coalescedAdvance: boolean;
  /** Only the workflow's `lastHeartbeatAt` (pending → running on the first call), coalesced. */
  heartbeat: boolean;
  /** A history sample: the first call of the workflow in this sample bucket when it is the workflow's turn (`samplesNow`). */
  sample: boolean;
}

const NOTHING: ProgressWrites = { coalescedAdvance: false, heartbeat: false, sample: false };

/** The last call about the workflow that is stored, progress or heartbeat. */
export const lastHeardAt = (workflow: Workflow): EpochMs | undefined =>
  workflow.lastHeartbeatAt === undefined && workflow.lastProgressAt === undefined
    ? undefined
    : Math.max(workflow.lastHeartbeatAt ?? -Infinity, workflow.lastProgressAt ?? -Infinity);

/** The stuck clock as far as this report can see it stored: the job's own and this workflow's. */
export const storedStuckClock = (job: Job, workflow: Workflow): EpochMs =>
  Math.max(job.tracking.lastProgressAt, workflow.lastProgressAt ?? -Infinity);

/** The refusal of a report about a workflow that has reported its outcome. */
export const workflowFinished = (workflow: Workflow): WorkflowFinishedError =>
  new WorkflowFinishedError(`Workflow '${workflow.workflowId}' has already reported its outcome; progress for it is no longer accepted.`);

/**
 * Coalescing (`progressCoalesceMs`): a heartbeat within a window of the workflow's last stored call
 * is not written, nor is a rise in `progress` within a window of the stored stuck clock. Whenever
 * the workflow is written anyway, the rise rides on that write. A new step is always written: steps
 * are compared for equality, so a step change left unwritten would make the worker's return to the
 * stored step read as no progress, and the job stuck early. Progress only rises, so a stored value
 * behind the worker's never hides a real rise. What coalescing costs is lateness, never earliness:
 * a worker that repeats a rise that was not written gets it credited at that repeat, once the repeat
 * comes a window or more after the stored clock. So a stuck job is timed out no earlier than its
 * last advance + the threshold, and no later than the threshold + one window after its last call
 * carrying a value, or after its last advance if no call after it carries one
 * (test/app/progress-write-model.property.test.ts).
 */
export function progressWrites(job: Job, workflow: Workflow, report: ProgressReport, now: EpochMs): ProgressWrites {
  if (isTerminal(job.status)) return NOTHING;
  if (job.workflowMarks[workflow.index] !== WorkflowMark.active) throw workflowFinished(workflow);
  const windowMs = progressCoalesceMs(job.tracking.stuckThresholdSeconds);
  const heardAt = lastHeardAt(workflow);
  const sample = samplesNow(job, workflow, heardAt, now);
  const heartbeatDue = heardAt === undefined || now - heardAt >= windowMs;
  const advance = advanceOf(workflow, report);
  const coalesce = advance !== undefined && advance.step === undefined && !heartbeatDue && now - storedStuckClock(job, workflow) < windowMs;
  if (advance && !coalesce) return { advance, coalescedAdvance: false, heartbeat: false, sample };
  return { coalescedAdvance: advance !== undefined, heartbeat: heartbeatDue, sample: heartbeatDue && sample };
}

/**
 * The job's history keeps one sample per kind per bucket (history-entry.ts), so one workflow takes
 * it: the bucket's turn among the job's active workflows, on its first call in the bucket. Samples
 * from every workflow would overwrite one another: as many writes as workflows for one entry.
 */
function samplesNow(job: Job, workflow: Workflow, heardAt: EpochMs | undefined, now: EpochMs): boolean {
  const window = { startedAt: job.tracking.startedAt, timeoutSeconds: job.tracking.timeoutSeconds };
  const bucket = sampleBucket(now, window);
  if (bucket === undefined || (heardAt !== undefined && sampleBucket(heardAt, window) === bucket)) return false;
  return sampleTurn(job, bucket) === workflow.index;
}

function sampleTurn(job: Job, bucket: number): number {
  const turn = bucket % workflowCounts(job).active;
  for (let index = 0, seen = 0; index < job.workflowMarks.length; index++) {
    if (job.workflowMarks[index] === WorkflowMark.active && seen++ === turn) return index;
  }
  return -1;
}

/** The latest advance among the job's own workflows (an earlier job's leftover items do not count). */
export function latestAdvanceAt(job: Job, workflows: readonly Workflow[]): EpochMs | undefined {
  let latest: EpochMs | undefined;
  for (const w of workflows) {
    if (belongsTo(w, job) && w.lastProgressAt !== undefined && (latest === undefined || w.lastProgressAt > latest)) latest = w.lastProgressAt;
  }
  return latest;
}

/**
 * The job's stuck clock with its workflows' advances folded in: reports write only their workflow,
 * so the job item's `lastProgressAt` is as of its last decision and the workflows hold the rest.
 * The same job when nothing is newer (a decision that changes nothing writes nothing).
 */
export function withWorkflowProgress(job: Job, latestWorkflowProgressAt: EpochMs | undefined): Job {
  if (latestWorkflowProgressAt === undefined || latestWorkflowProgressAt <= job.tracking.lastProgressAt) return job;
  return { ...job, tracking: { ...job.tracking, lastProgressAt: latestWorkflowProgressAt } };
}
