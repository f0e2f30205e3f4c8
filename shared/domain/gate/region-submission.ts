import { unchanged, type Decision } from '../effects.js';
import { secondsToMs, type EpochMs } from '../time.js';
import { cancelGateJob } from './cancel-gate-job.js';
import { gateJobStatus } from './gate-job-status.js';
import { isDecided, isRegionFinal, isTargetRegion, type GateJob } from './gate-job.js';
import type { GatePolicy } from './gate-policy.js';
import { heardFromRegion, ignoredRegionMessage } from './region-message-guard.js';
import { replyWithDecision } from './reply-with-decision.js';
import { settleAfterReport } from './settle-after-report.js';

/** What a region's answer to the gate's submission says of its start, on the region's clock. */
export interface RegionAcceptance {
  /** When the region started the job. */
  startedAt?: EpochMs;
  /** The job's deadline there (contract: region `POST /jobs`): its start only for a region that granted nothing yet. */
  deadlineAt?: EpochMs;
}

/**
 * The region's manager accepted the job at this fence token. When the gate already decided (the
 * answer came back late), the decision goes to the region right away.
 *
 * The gate counts that region's deadline from its start (global-deadline.ts): the answer's `startedAt`.
 * A region older than that field answers only `deadlineAt`, taken less the job's timeout: an answer to
 * a resend counts the grants made since, so it reads later than the start, never earlier (and the
 * gate adds those grants again). Whichever it is, the earliest start heard is kept.
 */
export function markRegionSubmitted(job: GateJob, region: string, fenceToken: number, acceptance: RegionAcceptance = {}): Decision<GateJob> {
  const ignored = ignoredRegionMessage(job, region, fenceToken, 'region_submitted');
  if (ignored) return ignored.ignored === 'stale_fence' ? startOfOvertakenAnswer(job, region, acceptance, ignored) : ignored;
  const next = withRegionStart(heardFromRegion(job, region, fenceToken), region, acceptance);
  if (isDecided(next)) return replyWithDecision(job, next, region);
  return next === job ? unchanged(job, 'duplicate') : { state: next, effects: [] };
}

/**
 * An answer overtaken by a takeover in the region (its JobLeaderTransfer heard first) carries an older
 * fence: as a leader's word it changes nothing, and is answered with nothing. Its start still holds,
 * since no takeover moves a job's `startedAt` (seed 000 Scenario 1): it is kept, under the fence the
 * gate holds. Refused whole, it was lost, and a region that accepted late (a resent submit) was counted
 * from `submittedAt`, timed out globally before the deadline its workers were told.
 */
function startOfOvertakenAnswer(job: GateJob, region: string, acceptance: RegionAcceptance, refused: Decision<GateJob>): Decision<GateJob> {
  const next = withRegionStart(job, region, acceptance);
  return next === job ? refused : { state: next, effects: [] };
}

function withRegionStart(job: GateJob, region: string, { startedAt: said, deadlineAt }: RegionAcceptance): GateJob {
  const startedAt = said ?? (deadlineAt === undefined ? undefined : deadlineAt - secondsToMs(job.timeoutSeconds));
  if (startedAt === undefined || !Number.isFinite(startedAt)) return job;
  const known = job.dcStartedAt?.[region];
  if (known !== undefined && known <= startedAt) return job;
  return { ...job, dcStartedAt: { ...job.dcStartedAt, [region]: startedAt } };
}

/**
 * The region definitely refused the job (its manager answered 4xx): it will never report, so it
 * counts as ended `failed` and cannot hold the job open. Not for a region that merely did not answer:
 * it may have the job, and its reports would then be ignored.
 */
export function markRegionSubmitFailed(job: GateJob, region: string, now: EpochMs, policy: GatePolicy): Decision<GateJob> {
  if (!isTargetRegion(job, region)) return unchanged(job, 'unknown_region');
  if (isRegionFinal(job, region)) return unchanged(job, 'region_final');
  return settleAfterReport({ ...job, dcStatus: { ...job.dcStatus, [region]: 'failed' } }, now, policy);
}

/**
 * Some regions refused the job, so the submit answers 409 and the caller gets no tokens: the job must
 * not run on, unworked, where it was accepted ("nothing is changed by a request that fails"). It is
 * cancelled there, with the gate's re-sends; one already decided or ended everywhere is left as it is.
 */
export function cancelAfterRefusal(job: GateJob, refusedRegions: readonly string[], now: EpochMs, policy: GatePolicy): Decision<GateJob> {
  if (isDecided(job) || gateJobStatus(job) !== 'RUNNING') return unchanged(job, 'already_decided');
  return cancelGateJob(job, `region_refused: ${refusedRegions.join(', ')}`, now, policy);
}
