import type { JobStatus } from '../job.js';
import { allRegionsFinal, type GateJob } from './gate-job.js';

/**
 * The job's status across regions: the gate's own decision first, then the regions' outcomes once
 * every region has one, the most severe winning (timed out, then failed, then cancelled).
 */
export function gateJobStatus(job: GateJob): JobStatus {
  if (job.globallyTimedOut) return 'TIMED_OUT';
  if (job.cancelRequested !== undefined) return 'CANCELLED';
  if (!allRegionsFinal(job)) return 'RUNNING';
  const outcomes = new Set(job.targetRegions.map((region) => job.dcStatus[region]));
  if (outcomes.has('timed_out')) return 'TIMED_OUT';
  if (outcomes.has('failed')) return 'FAILED';
  if (outcomes.has('cancelled')) return 'CANCELLED';
  return 'COMPLETED';
}
