import type { JobStatus } from '../job.js';
import { allRegionsFinal, type GateJob } from './gate-job.js';
import { timeoutReasonText } from './gate-timeout-cause.js';

/**
 * The job's status across regions: the gate's own decision first, then the regions' outcomes once
 * every region has one, the most severe winning (timed out, then failed, then cancelled), a cancel too.
 * A declared global timeout reads TIMED_OUT once a region confirms it: a region that completed while
 * the gate could not hear it (an outage, a partition) answers the re-sent decision with COMPLETED, and
 * a job that completed everywhere is then never reported TIMED_OUT (`globallyTimedOut` says it was declared).
 * Only a region's TIMED_OUT final status confirms it: a timeout report can be older than the region's
 * completion (sent during an outage, delivered after it).
 */
export function gateJobStatus(job: GateJob): JobStatus {
  if (job.globallyTimedOut && timeoutConfirmed(job)) return 'TIMED_OUT';
  // A cancel reads CANCELLED while it is applied; once every region has ended, how they ended is the
  // truth: a cancel that reached each region after it had completed cancelled nothing (review finding).
  if (!allRegionsFinal(job)) return job.cancelRequested !== undefined ? 'CANCELLED' : 'RUNNING';
  const outcomes = new Set(job.targetRegions.map((region) => job.dcStatus[region]));
  if (outcomes.has('timed_out')) return 'TIMED_OUT';
  if (outcomes.has('failed')) return 'FAILED';
  if (outcomes.has('cancelled')) return 'CANCELLED';
  return 'COMPLETED';
}

const timeoutConfirmed = (job: GateJob): boolean => job.targetRegions.some((region) => job.dcStatus[region] === 'timed_out');

/**
 * Why the job timed out: the gate's declared reason, or, for a job cancelled through the gate that
 * reads TIMED_OUT because a region timed out on its own before the cancel reached it, that region's
 * reason in the declared form (`dc_timeout:<region>:<reason>`).
 */
export function gateTimeoutReason(job: GateJob): string | undefined {
  if (job.timeoutReason !== undefined || gateJobStatus(job) !== 'TIMED_OUT') return job.timeoutReason;
  const region = job.targetRegions.find((target) => job.dcStatus[target] === 'timed_out' && job.dcTimeoutReported[target] !== undefined);
  return region === undefined ? undefined : timeoutReasonText({ kind: 'dc_timeout', region, localReason: job.dcTimeoutReported[region] as string });
}
