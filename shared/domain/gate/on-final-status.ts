import { unchanged, type Decision } from '../effects.js';
import type { EpochMs } from '../time.js';
import type { JobFinalStatus } from '../../events/job-final-status.js';
import { declareGlobalTimeout } from './declare-global-timeout.js';
import { allRegionsFinal, isDecided, isRegionFinal, isTargetRegion, type DcStatus, type GateJob } from './gate-job.js';
import type { GatePolicy } from './gate-policy.js';
import { settleAfterReport } from './settle-after-report.js';
import { onRegionCancelled } from './spread-region-cancel.js';

export type FinalStatusInput = Pick<JobFinalStatus, 'region' | 'fenceToken' | 'status' | 'timeoutReason' | 'cancelReason' | 'cancelEverywhere'>;

const dcStatusOf: Record<FinalStatusInput['status'], DcStatus> = {
  COMPLETED: 'completed',
  FAILED: 'failed',
  CANCELLED: 'cancelled',
  TIMED_OUT: 'timed_out',
};

/**
 * Seed 001 §10.5.2 `handle_final_status`: the region ended the job, which is what every re-send waits
 * for. No fence check: a region's terminal state is written once and a finished job cannot be taken
 * over, so a final status is never superseded, whatever token it carries; ignoring one would only
 * make the gate re-send forever.
 *
 * A region that timed out while the gate had not decided (it fell back while the gate was
 * unreachable, seed 000 Scenario 2) counts as a local timeout report: the others are timed out too.
 * One cancelled there (a call to its own cancel route) is cancelled everywhere (spread-region-cancel.ts).
 */
/**
 * Finding 6: the gate declared a timeout because a region's final status was lost; its re-sent
 * decision asked again, and now every region has answered without any having timed out. The job ended
 * everywhere on its own, so the gate's view ends with the regions' outcome, not TIMED_OUT.
 */
function withoutMootTimeout(job: GateJob): GateJob {
  if (!job.globallyTimedOut || !allRegionsFinal(job)) return job;
  if (job.targetRegions.some((region) => job.dcStatus[region] === 'timed_out')) return job;
  const { timeoutReason, decidedAt, ...rest } = job;
  return {
    ...rest,
    globallyTimedOut: false,
    withdrawnTimeout: { ...(timeoutReason !== undefined ? { reason: timeoutReason } : {}), ...(decidedAt !== undefined ? { decidedAt } : {}) },
  };
}

export function onFinalStatus(job: GateJob, final: FinalStatusInput, now: EpochMs, policy: GatePolicy): Decision<GateJob> {
  const { region } = final;
  if (!isTargetRegion(job, region)) return unchanged(job, 'unknown_region');
  // A region settled unheard when the re-sends gave up was only presumed ended: its own word replaces that.
  const presumed = job.dcSettledUnheard?.includes(region) === true && final.fenceToken >= (job.dcFenceToken[region] ?? 0);
  if (isRegionFinal(job, region) && !presumed) {
    // A region re-sending its own cancel did not hear the answer to the first: it is answered again.
    if (final.status === 'CANCELLED' && final.cancelEverywhere === true) return onRegionCancelled(job, final, now, policy, (decided) => unchanged(decided, 'region_final'));
    return unchanged(job, 'region_final');
  }
  const ended: GateJob = {
    ...withoutPresumedEnd(job, region),
    dcStatus: { ...job.dcStatus, [region]: dcStatusOf[final.status] },
    dcFenceToken: { ...job.dcFenceToken, [region]: Math.max(final.fenceToken, job.dcFenceToken[region] ?? 0) },
  };
  if (final.status === 'CANCELLED') return onRegionCancelled(withoutMootTimeout(ended), final, now, policy, (decided) => settleAfterReport(decided, now, policy));
  if (final.status !== 'TIMED_OUT') return settleAfterReport(withoutMootTimeout(ended), now, policy);
  const localReason = final.timeoutReason ?? 'timeout';
  const reported: GateJob = { ...ended, dcTimeoutReported: { ...ended.dcTimeoutReported, [region]: localReason } };
  // A region that timed out on its own before a cancel reached it, its timeout report lost: the job
  // reads TIMED_OUT once every region ended (gate-job-status.ts), and its reason is this one.
  if (job.cancelRequested !== undefined && !job.globallyTimedOut) {
    return settleAfterReport(ended.dcTimeoutReported[region] === undefined ? reported : ended, now, policy);
  }
  if (isDecided(ended)) return settleAfterReport(withoutMootTimeout(ended), now, policy);
  return declareGlobalTimeout(reported, { kind: 'dc_timeout', region, localReason }, now, policy);
}

function withoutPresumedEnd(job: GateJob, region: string): GateJob {
  if (!job.dcSettledUnheard?.includes(region)) return job;
  const { dcSettledUnheard, ...rest } = job;
  const others = dcSettledUnheard.filter((settled) => settled !== region);
  return others.length > 0 ? { ...rest, dcSettledUnheard: others } : rest;
}
