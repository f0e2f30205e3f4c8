import { metric, unchanged, type Decision } from '../effects.js';
import { isRegionFinal, isTargetRegion, type GateJob } from './gate-job.js';
import { replyWithDecision } from './reply-with-decision.js';

export type RegionMessageKind = 'progress_report' | 'timeout_report' | 'leader_transfer' | 'region_submitted';

/**
 * The checks every message from a region's manager passes first, so that duplicates, reordering and
 * stale leaders change nothing: a region the job does not run in, a region that already ended the
 * job, or a fence token older than one already heard from that region (a replaced leader). A
 * region ended unheard at the give-up that speaks up after all is answered with the decision.
 * Returns the "ignored" decision, or undefined when the message counts.
 */
export function ignoredRegionMessage(
  job: GateJob,
  region: string,
  fenceToken: number,
  kind: RegionMessageKind,
): Decision<GateJob> | undefined {
  if (!isTargetRegion(job, region)) return unchanged(job, 'unknown_region');
  if (isRegionFinal(job, region)) {
    // Ended unheard at the give-up, yet it has the job (a resent submit): its end comes from the decision.
    if (job.dcSettledUnheard?.includes(region) && fenceToken >= (job.dcFenceToken[region] ?? 0)) {
      return replyWithDecision(job, heardFromRegion(job, region, fenceToken), region);
    }
    return unchanged(job, 'region_final');
  }
  if (fenceToken < (job.dcFenceToken[region] ?? 0)) {
    return unchanged(job, 'stale_fence', [metric('StaleMessageRejected', { kind })]);
  }
  return undefined;
}

/**
 * The region's manager is alive at this fence token: a region still `submitting` evidently has the
 * job, and the token only goes up. Returns the very same object when nothing moves.
 */
export function heardFromRegion(job: GateJob, region: string, fenceToken: number): GateJob {
  const raise = fenceToken > (job.dcFenceToken[region] ?? 0);
  const start = job.dcStatus[region] === 'submitting';
  if (!raise && !start) return job;
  return {
    ...job,
    ...(raise ? { dcFenceToken: { ...job.dcFenceToken, [region]: fenceToken } } : {}),
    ...(start ? { dcStatus: { ...job.dcStatus, [region]: 'running' as const } } : {}),
  };
}
