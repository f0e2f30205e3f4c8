import type { WorkerGrantRecord } from '../domain/extension-ledger.js';
import type { Job, Workflow } from '../domain/job.js';
import type { WorkflowAdvance } from '../domain/record-progress.js';
import type { EpochMs } from '../domain/time.js';
import type { WorkerHealth } from '../domain/worker-health.js';
import type { DueWakeUp } from './timers.js';

/** Thrown when a conditional write finds another version than the one the decision read. */
export class VersionConflictError extends Error {
  constructor(readonly key: string) {
    super(`version conflict on ${key}`);
    this.name = 'VersionConflictError';
  }
}

export interface WorkflowRef {
  jobId: string;
  workflowId: string;
}

/** The fields a progress report writes on its workflow; `undefined`: not stored. */
export type ReportedWorkflowFields = { [field in 'lastHeartbeatAt' | 'lastProgressAt' | 'progress' | 'step']?: Workflow[field] | undefined };

/** The region manager's state: one item per job, sibling items per workflow, one per worker. */
export interface JobStore {
  getJob(jobId: string): Promise<Job | undefined>;
  /** The job and its workflows in submission order; not its grant records (a job answer reads its page's: `findGrantRecordsOf`). */
  getJobWithWorkflows(jobId: string): Promise<{ job: Job; workflows: Workflow[] } | undefined>;
  getWorkflow(jobId: string, workflowId: string): Promise<Workflow | undefined>;
  /** Up to `limit` workflows in workflow-id order after `afterWorkflowId` (from the first when absent); `more` when others follow. */
  getWorkflowsAfter(jobId: string, afterWorkflowId: string | undefined, limit: number): Promise<{ workflows: Workflow[]; more: boolean }>;
  /** The job, one workflow and its worker in one round trip (the progress hot path). */
  getProgressContext(
    jobId: string,
    workflowId: string,
    workerId: string,
  ): Promise<{ job?: Job; workflow?: Workflow; worker?: WorkerHealth }>;
  /** Writes the job only if no job with that id exists, then its workflows; else returns the existing job. */
  createJob(job: Job, workflows: readonly Workflow[]): Promise<{ created: true; job: Job } | { created: false; existing: Job }>;
  /** Idempotent: rewrites the workflow items (a resubmission repairs a submit that crashed midway). */
  putWorkflows(workflows: readonly Workflow[]): Promise<void>;
  /** Conditional on `expectedVersion`; returns the job as stored (version + 1). */
  saveJob(job: Job, expectedVersion: number): Promise<Job>;
  /** The latest `lastProgressAt` of the job's workflows of this incarnation (the job's stuck clock). */
  latestWorkflowProgressAt(jobId: string, incarnation: string): Promise<EpochMs | undefined>;
  /**
   * Stores an advance (its values and `lastProgressAt`) only while every stored value it changes is
   * still behind it and no later advance is stored: the progress stays the highest, a concurrent
   * newer advance wins, and `lastProgressAt` never moves back. Returns what the fields it wrote held
   * just before it landed (another report's write may have landed after this report read them);
   * undefined when it did not land, or its landing is not known (a retry refused after a lost answer).
   */
  recordWorkflowAdvance(jobId: string, workflowId: string, at: EpochMs, advance: WorkflowAdvance): Promise<ReportedWorkflowFields | undefined>;
  /** Moves the workflow's `lastHeartbeatAt` forward; never back. Returns what it replaced, as `recordWorkflowAdvance`. */
  touchWorkflowHeartbeat(jobId: string, workflowId: string, at: EpochMs): Promise<ReportedWorkflowFields | undefined>;
  /**
   * Takes back a report's write of this workflow at `at` (its `advance`, or without one its heartbeat),
   * putting `restore` back in the fields it wrote: only while the item still holds exactly that write
   * and is of the report's job (`incarnation`), so a later write is never undone. `restore` is what
   * the write replaced, so another report's write that landed in between stands.
   */
  withdrawWorkflowWrite(workflow: Pick<Workflow, 'jobId' | 'workflowId' | 'incarnation'>, at: EpochMs, advance: WorkflowAdvance | undefined, restore: ReportedWorkflowFields): Promise<void>;
  /**
   * What the `byWorker` index lists for this worker: its workflows that may still be active, and the
   * jobs where it may hold a grant. A workflow leaves the index when it gets an outcome or is found
   * in a finished job, a grant record when its grant is retired: a worker's request costs O(its
   * active jobs), not O(every job it ever ran).
   */
  findWorkOfWorker(workerId: string): Promise<{
    workflows: Array<{ jobId: string; workflowId: string; index: number }>;
    grants: Array<{ jobId: string; workerIndex: number }>;
  }>;
  /**
   * The latest call (progress or heartbeat) stored on the workflows the `byWorker` index lists for
   * this worker: reports that write their workflow carry the worker's health there (`heardAt`).
   * `except`: a workflow left out (the caller holds its time as it was before its own write).
   */
  latestHeardFromWorkflows(workerId: string, except?: WorkflowRef): Promise<EpochMs | undefined>;
  /**
   * Takes these workflows out of the `byWorker` index (they stay readable until they expire), each
   * first handing its last call to its worker's `lastHealthAt`, so the worker's health keeps it.
   * One given with `incarnation` leaves only while its item is still of that job (not one submitted again since).
   */
  leaveWorkerIndex(workflows: ReadonlyArray<{ jobId: string; workflowId: string; incarnation?: string }>): Promise<void>;
  /** Takes the worker's grant record on this job out of the index, unless it holds a grant of budget `epochBefore` or later. */
  retireGrantRecord(jobId: string, workerId: string, epochBefore: number): Promise<void>;
  /**
   * Writes the record of a worker's newest grant on a job, beside the job item, and returns the
   * worker's index in that job: the one its first record chose (`record.workerIndex` if none), so
   * one worker's grants on a job always replace each other.
   */
  recordGrant(record: WorkerGrantRecord): Promise<number>;
  /** The job's grant records; with `incarnation`, only that job's (not an earlier job's with this id). */
  findGrantRecords(jobId: string, incarnation?: string): Promise<WorkerGrantRecord[]>;
  /** The job's grant records of these workers (scoped ids, as the records name them), in the order `findGrantRecords` lists them; with `incarnation`, only that job's. */
  findGrantRecordsOf(jobId: string, workerIds: readonly string[], incarnation?: string): Promise<WorkerGrantRecord[]>;
  /** Overdue wake-ups from the sparse timer index (the backstop sweep and restart recovery). */
  findDueTimers(dueBy: EpochMs, limit: number): Promise<DueWakeUp[]>;

  getWorker(workerId: string): Promise<WorkerHealth | undefined>;
  getWorkers(workerIds: readonly string[]): Promise<WorkerHealth[]>;
  /**
   * Conditional on `expectedVersion` (0 creates); returns the worker as stored. An update writes the
   * budget and the failure mark only, never `lastHealthAt`: a concurrent healthcheck's newer time
   * must not be turned back. `touchWorkerHealth` moves it.
   */
  saveWorker(worker: WorkerHealth, expectedVersion: number): Promise<WorkerHealth>;
  /** Moves `lastHealthAt` forward; never back. */
  touchWorkerHealth(workerId: string, at: EpochMs): Promise<void>;
}
