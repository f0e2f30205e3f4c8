import type { BusEvent } from '../ports/event-bus.js';
import type { EncodedGrants } from './extension-ledger.js';
import type { EpochMs } from './time.js';

export type JobStatus = 'RUNNING' | 'COMPLETED' | 'FAILED' | 'CANCELLED' | 'TIMED_OUT';
export type TimeoutStrategyType = 'local_authority' | 'gate_coordinated';
export type TimeoutReason = 'timeout' | 'stuck' | 'global_timeout' | 'gate_fallback';

/** Seed 001 §10.1.1, camelCase, `gateRegion` for `gate_addr`. */
export interface TimeoutTrackingState {
  strategy: TimeoutStrategyType;
  gateRegion?: string;
  startedAt: EpochMs;
  lastProgressAt: EpochMs;
  /** Last progress report sent to the gate (gate-coordinated only). */
  lastReportAt: EpochMs;
  timeoutSeconds: number;
  stuckThresholdSeconds: number;
  totalExtensionsGranted: number;
  maxWorkerExtension: number;
  lastExtensionAt: EpochMs;
  /** Seed 001 `active_workers_with_extensions`: how many workers' grants count toward the deadline. */
  workersWithExtensions: number;
  /** Each extended worker's newest grant (see `extension-ledger.ts`); absent while there is none. */
  workerGrants?: EncodedGrants;
  locallyTimedOut: boolean;
  globallyTimedOut: boolean;
  timeoutReason?: TimeoutReason;
  /** When the local timeout was reported to the gate; the gate fallback runs from here. */
  timeoutReportedAt?: EpochMs;
  fenceToken: number;
}

/** One character per workflow, by submission index. Cancelled is derived: active in a finished job. */
export const WorkflowMark = { active: 'a', completed: 'c', failed: 'f' } as const;
export type WorkflowMark = (typeof WorkflowMark)[keyof typeof WorkflowMark];

export interface Job {
  jobId: string;
  region: string;
  /** Who submitted it (see `tenant.ts`); absent for the default tenant. */
  tenant?: string;
  status: JobStatus;
  /** Optimistic-concurrency version: every write is conditional on it. */
  version: number;
  submissionDigest: string;
  /**
   * Random per submission: an id reused after the old job expired is another incarnation, and the old
   * job's tokens and leftover workflow items never act on the new one.
   */
  incarnation: string;
  createdAt: EpochMs;
  finishedAt?: EpochMs;
  cancelReason?: string;
  tracking: TimeoutTrackingState;
  /** Workflow outcomes, one `WorkflowMark` per workflow in submission order. */
  workflowMarks: string;
  /** The durable wake-up of this job; absent once the job is finished, its outbox empty and its row listed. */
  timerDueAt?: EpochMs;
  /**
   * Events decided with the last write and not yet confirmed published (transactional outbox):
   * a crash between the write and the publish loses none of them.
   */
  outbox?: BusEvent[];
  /** Failed publishes of the outbox in a row: its retry wake-up backs off (app layer only). */
  outboxFailures?: number;
  /** Finished, and its row in the jobs list not yet known written (app layer only, decide-and-save.ts). */
  viewPending?: boolean;
  /** Sweeps in a row that could not fire the wake-up: the sweep backs it off (app layer only). */
  timerFailures?: number;
  /**
   * A gate-coordinated job cancelled by a call to this region, while the gate has not answered: its
   * final status asks the gate to cancel the job everywhere, and is sent again at `nextSendAt` until a
   * decision of the gate arrives (own-cancel-to-gate.ts). `sends` counts the sends, for the give-up.
   */
  cancelToSpread?: { sends: number; nextSendAt: EpochMs };
}

export interface Workflow {
  jobId: string;
  workflowId: string;
  workerId: string;
  index: number;
  /** The job's tenant: its worker is `scopedWorkerId(tenant, workerId)`. */
  tenant?: string;
  /** The incarnation of the job this workflow was submitted with. */
  incarnation: string;
  /** The last call that advanced the workflow (record-progress.ts): a heartbeat does not move it. */
  lastProgressAt?: EpochMs;
  /** The last call about the workflow, progress or heartbeat; written coalesced. */
  lastHeartbeatAt?: EpochMs;
  /** The highest progress value reported; a lower one never replaces it. */
  progress?: number;
  /** The last step the worker reported, as a string. */
  step?: string;
  /** No job can still be running by then (`latestEndAt`): the item expires some time after it. */
  retainUntil?: EpochMs;
}

export type WorkflowState = 'running' | 'completed' | 'failed' | 'cancelled';

/** A workflow item left over from an earlier job with the same id is none of this job's. */
export const belongsTo = (workflow: Workflow, job: Job): boolean => workflow.incarnation === job.incarnation;

export const isTerminal = (status: JobStatus): boolean => status !== 'RUNNING';

export function workflowState(job: Job, workflow: Workflow): WorkflowState {
  const mark = job.workflowMarks[workflow.index];
  if (mark === WorkflowMark.completed) return 'completed';
  if (mark === WorkflowMark.failed) return 'failed';
  if (isTerminal(job.status)) return 'cancelled';
  // One that has not reported yet is running too (the contract's states): its stuck clock runs from the job's start.
  return 'running';
}

export function workflowCounts(job: Job): { total: number; completed: number; failed: number; active: number } {
  let completed = 0;
  let failed = 0;
  for (const mark of job.workflowMarks) {
    if (mark === WorkflowMark.completed) completed++;
    else if (mark === WorkflowMark.failed) failed++;
  }
  const total = job.workflowMarks.length;
  return { total, completed, failed, active: total - completed - failed };
}
