import type { BusEvent } from '../../ports/event-bus.js';
import type { EpochMs } from '../time.js';

/** A region's workflows as its manager last reported them. */
export interface DcWorkflowCounts {
  total: number;
  completed: number;
  failed: number;
}

/** One region's copy of the job as the gate sees it. `submitting` until that region's manager accepted it. */
export type DcStatus = 'submitting' | 'running' | 'completed' | 'failed' | 'cancelled' | 'timed_out';

/**
 * Seed 001 §10.5.1 `GateJobTrackingInfo` in camelCase: one item in the gate table. Per-region maps
 * are keyed by region name.
 *
 * `dc_manager_addrs` has no counterpart on purpose: in a serverless design a region is reached
 * through its event bus (one forwarding rule per region), never at a manager's host and port, and
 * which Lambda may act for the job is settled by the fence token, so there is no address to keep.
 */
export interface GateJob {
  jobId: string;
  /** Who submitted it (see `tenant.ts`): only it may read or cancel the job. Absent for the default tenant. */
  tenant?: string;
  /** Optimistic-concurrency version: every write is conditional on it. */
  version: number;
  submissionDigest: string;
  /** Gate clock at submission: the start of the global deadline for a region not known to have started later (`dcStartedAt`). */
  submittedAt: EpochMs;
  timeoutSeconds: number;
  targetRegions: string[];
  dcStatus: Record<string, DcStatus>;
  /** Last workflow progress per region as its manager reported it; only moves forward. */
  dcLastProgress: Record<string, EpochMs>;
  /**
   * Manager timestamp of the newest progress report per region; absent before the first one. Next to
   * `dcLastProgress` it tells "alive without progress" apart from "not heard from" (see stuck-regions.ts).
   */
  dcLastReportAt: Record<string, EpochMs>;
  /**
   * When each region started the job, on that region's clock, as its acceptance said (its submit
   * answer's `startedAt`; see `markRegionSubmitted`). A region accepts late when
   * the fan-out is resent after it did not answer, and it measures its deadline from then: the gate
   * measures that region's deadline from the same moment (global-deadline.ts). Absent for a region
   * whose acceptance the gate has not heard, and in items written before it existed.
   */
  dcStartedAt?: Record<string, EpochMs>;
  /** Highest fence token heard from each region; a decision is addressed with it. */
  dcFenceToken: Record<string, number>;
  dcTotalExtensions: Record<string, number>;
  dcMaxExtension: Record<string, number>;
  dcWorkersWithExtensions: Record<string, number>;
  /**
   * From each region's newest progress report (seed 001 §10.2.1 `workflows_*`); absent before its
   * first. Optional so gate items written before these figures existed still read.
   */
  dcWorkflows?: Record<string, DcWorkflowCounts>;
  /** Each region's newest `hasRecentProgress` (seed 001 §10.2.1): its manager saw progress since the report before. */
  dcHasRecentProgress?: Record<string, boolean>;
  /** Regions that reported a local timeout, with the reason they gave. */
  dcTimeoutReported: Record<string, string>;
  globallyTimedOut: boolean;
  /** Why the gate timed the job out; see gate-timeout-cause.ts for the forms. */
  timeoutReason?: string;
  /**
   * The gate's decision counter (seed 000 Part 5 `timeout_fence_token++`). Bumped by a global timeout
   * and by a cancel, and carried by the gate's timer, so a wake-up armed before the decision is stale.
   */
  timeoutFenceToken: number;
  /**
   * A global timeout that every region's final status showed moot: each region had ended on its own
   * (its final status was lost, and the decision's re-send asked again). Kept for the record.
   */
  withdrawnTimeout?: { reason?: string; decidedAt?: EpochMs };
  /** When the gate decided (global timeout or cancel). */
  decidedAt?: EpochMs;
  /**
   * Regions that never accepted the job and were ended as the decision says when the re-sends gave
   * up (`on-gate-timer-fired.ts`): if one turns out to have it after all (a resent submit), it is told the decision.
   */
  dcSettledUnheard?: string[];
  /**
   * Set once, when condition 1 came due while a running region's extension total may be unheard: the
   * gate waits for reports until then, and declares on what it has after (on-gate-timer-fired.ts).
   */
  extensionReportsAwaitedUntil?: EpochMs;
  /** Timed re-sends of the decision actually sent (absent before the first): the give-up counts these, not the clock. */
  rebroadcasts?: number;
  /**
   * Present once the job was cancelled through the gate, or by a call to one of its regions (`region`,
   * whose CANCELLED final status the gate spread to the others: spread-region-cancel.ts).
   */
  cancelRequested?: { reason?: string; region?: string };
  /** The durable wake-up of this gate job; absent when the gate has nothing left to do on its own. */
  timerDueAt?: EpochMs;
  /**
   * How far past the decision that armed it the furthest of this job's wake-ups under its current
   * `timeoutFenceToken` was due: its withdrawal skips Scheduler when none can have been a schedule
   * (gate-timer.ts). Absent on jobs stored before it was kept.
   */
  farthestWakeUpAheadMs?: number;
  /** Written and drained by the app layer's transactional outbox; the domain never sets it. */
  outbox?: BusEvent[];
  /** Failed publishes of the outbox in a row: its retry wake-up backs off (app layer only). */
  outboxFailures?: number;
  /** Finished, and its row in the jobs list not yet known written (app layer only, decide-and-save.ts). */
  viewPending?: boolean;
  /** Sweeps in a row that could not fire the wake-up: the sweep backs it off (app layer only). */
  timerFailures?: number;
}

export const isFinalDcStatus = (status: DcStatus): boolean =>
  status !== 'submitting' && status !== 'running';

export const isTargetRegion = (job: GateJob, region: string): boolean => job.dcStatus[region] !== undefined;

export const isRegionFinal = (job: GateJob, region: string): boolean => {
  const status = job.dcStatus[region];
  return status !== undefined && isFinalDcStatus(status);
};

/** Regions that have not reported how the job ended there: the ones a decision must still reach. */
export const regionsNotFinal = (job: GateJob): string[] =>
  job.targetRegions.filter((region) => !isRegionFinal(job, region));

export const allRegionsFinal = (job: GateJob): boolean => regionsNotFinal(job).length === 0;

/** The gate has decided: timed out globally or cancelled. A job is decided at most once. */
export const isDecided = (job: GateJob): boolean => job.globallyTimedOut || job.cancelRequested !== undefined;
