import { effectiveDeadline } from '../deadlines.js';
import { gateJobStatus, gateTimeoutReason } from '../gate/gate-job-status.js';
import { allRegionsFinal, type GateJob } from '../gate/gate-job.js';
import { globalDeadline } from '../gate/global-deadline.js';
import type { Job, JobStatus, TimeoutStrategyType } from '../job.js';
import { storedTenant } from '../tenant.js';
import type { EpochMs } from '../time.js';

/** One row of the jobs list: what an operator scans for, kept beside the job and rewritten as it changes. */
export interface JobListing {
  jobId: string;
  /** The job's tenant, whose list alone shows it; absent for the default tenant (and rows from before tenants). */
  tenant?: string;
  status: JobStatus;
  strategy: TimeoutStrategyType;
  createdAt: EpochMs;
  deadlineAt: EpochMs;
  timeoutReason?: string;
  finishedAt?: EpochMs;
  /** Gate listings: the regions the job runs in. */
  regions?: string[];
  /**
   * A gate job's CANCELLED while its regions are still ending: how they end is the truth
   * (`gateJobStatus`), so the row that says it replaces this one, never the other way round.
   */
  provisional?: true;
}

export const jobListing = (job: Job): JobListing => ({
  jobId: job.jobId,
  ...storedTenant(job.tenant),
  status: job.status,
  strategy: job.tracking.strategy,
  createdAt: job.createdAt,
  deadlineAt: effectiveDeadline(job.tracking),
  ...(job.status === 'TIMED_OUT' && job.tracking.timeoutReason ? { timeoutReason: job.tracking.timeoutReason } : {}),
  ...(job.finishedAt !== undefined ? { finishedAt: job.finishedAt } : {}),
});

export function gateJobListing(job: GateJob): JobListing {
  const status = gateJobStatus(job);
  const timeoutReason = gateTimeoutReason(job);
  return {
    jobId: job.jobId,
    ...storedTenant(job.tenant),
    status,
    strategy: 'gate_coordinated',
    createdAt: job.submittedAt,
    deadlineAt: globalDeadline(job),
    ...(timeoutReason !== undefined ? { timeoutReason } : {}),
    ...(job.decidedAt !== undefined ? { finishedAt: job.decidedAt } : {}),
    regions: job.targetRegions,
    ...(status === 'CANCELLED' && !allRegionsFinal(job) ? { provisional: true as const } : {}),
  };
}

/** The listing changed in a way the list shows. */
export const listingChanged = (before: JobListing, after: JobListing): boolean =>
  before.status !== after.status ||
  before.deadlineAt !== after.deadlineAt ||
  before.timeoutReason !== after.timeoutReason ||
  before.provisional !== after.provisional;
