import type { GateJob } from '../domain/gate/gate-job.js';
import type { EpochMs } from '../domain/time.js';
import type { DueWakeUp } from './timers.js';

/**
 * The gate's state: one item per job in the gate region's table. Every write is conditional;
 * a lost race throws `VersionConflictError` (from job-store.ts) and the caller decides again.
 */
export interface GateStore {
  get(jobId: string): Promise<GateJob | undefined>;
  /** Writes the job only if no job with that id exists; else returns the existing one. */
  create(job: GateJob): Promise<{ created: true; job: GateJob } | { created: false; existing: GateJob }>;
  /** Conditional on `expectedVersion`; returns the job as stored (version + 1). */
  save(job: GateJob, expectedVersion: number): Promise<GateJob>;
  /**
   * Overdue wake-ups from the sparse timer index (`timerDueAt`), each as `gateTimerRequest(job)`
   * builds it: scope `gate`, fence token = the job's `timeoutFenceToken`.
   */
  findDueTimers(dueBy: EpochMs, limit: number): Promise<DueWakeUp[]>;
}
