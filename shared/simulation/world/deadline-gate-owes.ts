import { effectiveDeadline } from '../../domain/deadlines.js';
import { submittedDeadline } from '../../domain/gate/global-deadline.js';
import type { GateJob } from '../../domain/gate/gate-job.js';
import type { Job } from '../../domain/job.js';
import type { EpochMs } from '../../domain/time.js';

/** A region still running a gate-coordinated job when the gate declared its global timeout, as the world knows it. */
export interface RegionAtDecision {
  /** The region's own item: when it really started the job, and the grants its workers really hold. */
  job: Job;
  /** Whether the gate had heard the region accept the job, the only message that tells it when the region started. */
  acceptanceHeard: boolean;
  /**
   * The extension total the gate held for the region, given only when it declared after waiting its
   * grace for reports it could not hear: then no more than this much of the region's grants is owed.
   */
  extensionsHeardSeconds?: number;
}

/**
 * The deadline a region's workers were told (its start + timeout + its grants, AD-34 Part 8) that a
 * global timeout for the deadline (seed 000 Part 5, condition 1) must not come before, except where
 * the gate cannot know it:
 * - a region whose acceptance the gate never heard counts from `submittedAt`: the gate has no other
 *   word of when it started (a region cut off at the fan-out may have the job without the gate knowing);
 * - a region that started after the job's own deadline (`submittedAt + timeoutSeconds`) counts from
 *   `submittedAt` too: a resend that late must not postpone everyone's end by more than one timeout;
 * - a gate that waited its grace for the reports of a region it could not hear owes that region only
 *   the grants it heard of: a partition hides the rest, and it must end the job on what it has.
 */
export function deadlineGateOwes(gateJob: GateJob, region: RegionAtDecision): EpochMs {
  const { startedAt, totalExtensionsGranted } = region.job.tracking;
  const startKnown = region.acceptanceHeard && startedAt <= submittedDeadline(gateJob);
  const countedFrom = startKnown ? Math.max(startedAt, gateJob.submittedAt) : gateJob.submittedAt;
  const extensions = Math.min(totalExtensionsGranted, region.extensionsHeardSeconds ?? Number.POSITIVE_INFINITY);
  return effectiveDeadline({ ...region.job.tracking, startedAt: countedFrom, totalExtensionsGranted: extensions });
}
