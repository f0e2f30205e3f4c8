import type { Decision } from '../effects.js';
import { InvalidRequestError } from '../errors.js';
import { storedTenant } from '../tenant.js';
import { storableSeconds, type EpochMs } from '../time.js';
import type { DcStatus, GateJob } from './gate-job.js';
import { globalTimeoutDueAt } from './global-deadline.js';
import { defaultGatePolicy, type GatePolicy } from './gate-policy.js';
import { armGateTimer } from './gate-timer.js';

/** What the gate needs of a submission; the regions are the keys of `datacenters` (contract: gate `POST /jobs`). */
export interface GateJobSubmission {
  jobId: string;
  timeoutSeconds: number;
  datacenters: Readonly<Record<string, unknown>>;
  /** The submitter; absent or `default` for the default tenant. */
  tenant?: string;
}

const perRegion = <Value>(regions: readonly string[], value: Value): Record<string, Value> =>
  Object.fromEntries(regions.map((region) => [region, value]));

/**
 * Seed 001 §10.5.2 `start_tracking_job`: every region `submitting` until its manager accepts the
 * job, and one wake-up at the global deadline. The gate's clock starts the global deadline (a region
 * that accepts later counts from its own start, global-deadline.ts) and, until a region reports,
 * stands in for its last progress.
 */
export function startGateJob(
  submission: GateJobSubmission,
  submissionDigest: string,
  now: EpochMs,
  policy: Pick<GatePolicy, 'extensionReportGraceSeconds'> = defaultGatePolicy,
): Decision<GateJob> {
  const regions = Object.keys(submission.datacenters);
  if (regions.length === 0) {
    throw new InvalidRequestError('A gate job needs at least one datacenter. Name the regions to run it in under `datacenters`.');
  }
  const job: GateJob = {
    jobId: submission.jobId,
    ...storedTenant(submission.tenant),
    version: 0,
    submissionDigest,
    submittedAt: now,
    timeoutSeconds: storableSeconds(submission.timeoutSeconds),
    targetRegions: regions,
    dcStatus: perRegion<DcStatus>(regions, 'submitting'),
    dcLastProgress: perRegion(regions, now),
    dcLastReportAt: {},
    // 0 = not heard yet; a manager starts at 1, so a decision sent before it answered is corrected.
    dcFenceToken: perRegion(regions, 0),
    dcTotalExtensions: perRegion(regions, 0),
    dcMaxExtension: perRegion(regions, 0),
    dcWorkersWithExtensions: perRegion(regions, 0),
    dcTimeoutReported: {},
    globallyTimedOut: false,
    timeoutFenceToken: 0,
    farthestWakeUpAheadMs: 0,
  };
  const armed = armGateTimer(job, globalTimeoutDueAt(job, policy), now);
  return { state: armed.job, effects: armed.effects };
}
