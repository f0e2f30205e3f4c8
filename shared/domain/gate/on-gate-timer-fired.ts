import { metric, unchanged, type Decision } from '../effects.js';
import { secondsToMs, type EpochMs } from '../time.js';
import type { TimerRequest } from '../../ports/timers.js';
import { broadcastDecision } from './broadcast-decision.js';
import { declareGlobalTimeout } from './declare-global-timeout.js';
import { allRegionsFinal, isDecided, type DcStatus, type GateJob } from './gate-job.js';
import type { GatePolicy } from './gate-policy.js';
import { armGateTimer, disarmGateTimer } from './gate-timer.js';
import { extensionsMayBeUnheard, globalTimeoutDueAt } from './global-deadline.js';
import { ownWakeUpLost } from '../job-timer.js';

/**
 * The gate job's wake-up, checked lazily like the manager's: a timer armed before the decision is
 * stale; not due (extensions moved the deadline, or the re-send is not due yet) → re-arm only.
 * Undecided and due → global timeout (seed 000 Part 5, condition 1). Decided and due → re-send to
 * the regions without a final status, until the give-up span's worth of re-sends went out.
 */
export function onGateTimerFired(
  job: GateJob,
  timer: Pick<TimerRequest, 'fenceToken'> & { dueAt?: number },
  now: EpochMs,
  policy: GatePolicy,
): Decision<GateJob> {
  if (timer.fenceToken !== job.timeoutFenceToken) {
    return unchanged(job, 'stale_timer', [metric('StaleMessageRejected', { kind: 'gate_timer' })]);
  }
  if (allRegionsFinal(job)) return unchanged(job, 'all_regions_final');
  // Only the wake-up last asked for may act, so a late duplicate cannot start a second re-send chain;
  // unless that one is overdue past the grace, presumed lost: then this one acts in its place (and
  // re-arms, so the lost one, arriving after all, is superseded in turn), as a job's does.
  if (timer.dueAt !== undefined && job.timerDueAt !== undefined && timer.dueAt !== job.timerDueAt && !ownWakeUpLost(job, now)) {
    return unchanged(job, 'superseded_timer');
  }
  if (!isDecided(job)) return checkGlobalDeadline(job, now, policy);
  if (job.timerDueAt === undefined) return unchanged(job, 'rebroadcast_stopped');
  if (now < job.timerDueAt) return unchanged(job, 'not_due', armGateTimer(job, job.timerDueAt, now).effects);
  // Counted in re-sends sent, not time since the decision: a gate back from a long outage still asks
  // the regions whose final status was lost while it was down, for the whole give-up span.
  const rebroadcasts = job.rebroadcasts ?? 0;
  if (rebroadcasts >= rebroadcastsBeforeGivingUp(policy)) {
    const stopped = disarmGateTimer(withNeverStartedSettled(job));
    return { state: stopped.job, effects: stopped.effects };
  }
  const resent = broadcastDecision(job, now, policy);
  return { state: { ...resent.state, rebroadcasts: rebroadcasts + 1 }, effects: resent.effects };
}

const rebroadcastsBeforeGivingUp = (policy: GatePolicy): number => Math.ceil(policy.rebroadcastGiveUpSeconds / policy.rebroadcastSeconds);

/**
 * Condition 1's grace assumes the gate could hear the regions' periodic reports during it. A gate
 * that could not (down, or cut off, across the grace) would cut short a grant it never heard of, so
 * it first rebuilds its view from the reports (seed 000 Scenario 2): once per job, from the moment it
 * finds a running region's total may be unheard, it waits one more grace (a report interval and its
 * slack), then declares on what it has. A region cut off for good still ends by its own deadline and
 * fallback; the gate's decision comes at most one grace after the wake-up that found its view stale.
 */
function checkGlobalDeadline(job: GateJob, now: EpochMs, policy: GatePolicy): Decision<GateJob> {
  const due = globalTimeoutDueAt(job, policy);
  if (now < due) return wakeAt(job, due, now);
  const awaitedUntil = job.extensionReportsAwaitedUntil;
  if (awaitedUntil === undefined && extensionsMayBeUnheard(job)) {
    const until = now + secondsToMs(policy.extensionReportGraceSeconds);
    const waiting = armGateTimer({ ...job, extensionReportsAwaitedUntil: until }, until, now);
    return { state: waiting.job, effects: waiting.effects };
  }
  if (awaitedUntil !== undefined && now < awaitedUntil) return wakeAt(job, awaitedUntil, now);
  return declareGlobalTimeout(job, { kind: 'timeout' }, now, policy);
}

function wakeAt(job: GateJob, dueAt: EpochMs, now: EpochMs): Decision<GateJob> {
  const rearmed = armGateTimer(job, dueAt, now);
  return job.timerDueAt === dueAt ? unchanged(job, 'not_due', rearmed.effects) : { state: rearmed.job, effects: rearmed.effects };
}

/**
 * A region still `submitting` when the re-sends give up never accepted the job (it was unreachable at
 * submit and nobody resent it): nothing runs there to report an end. It ends as the decision says,
 * so the gate's job can end too (its status, its row, its expiry) instead of showing RUNNING forever.
 */
function withNeverStartedSettled(job: GateJob): GateJob {
  const ending: DcStatus = job.cancelRequested !== undefined ? 'cancelled' : 'timed_out';
  const neverStarted = job.targetRegions.filter((region) => job.dcStatus[region] === 'submitting');
  if (neverStarted.length === 0) return job;
  return {
    ...job,
    dcStatus: { ...job.dcStatus, ...Object.fromEntries(neverStarted.map((region) => [region, ending])) },
    dcSettledUnheard: neverStarted,
  };
}
