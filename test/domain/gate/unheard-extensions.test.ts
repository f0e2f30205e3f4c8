import { describe, expect, it } from 'vitest';
import type { GateJob } from '../../../shared/domain/gate/gate-job.js';
import { onGateTimerFired } from '../../../shared/domain/gate/on-gate-timer-fired.js';
import { onProgressReport } from '../../../shared/domain/gate/on-progress-report.js';
import { EU, T0, US, globalTimeoutsByRegion, heardFromEveryRegion, policy, progressReport, runningGateJob, seconds } from './gate-fixtures.js';

const grace = seconds(policy.extensionReportGraceSeconds);
const fire = (job: GateJob, now: number) =>
  onGateTimerFired(job, { fenceToken: job.timeoutFenceToken, ...(job.timerDueAt !== undefined ? { dueAt: job.timerDueAt } : {}) }, now, policy);

/** A 60 s job in two regions whose reports reached the gate up to 50 s, none since (the gate was down, or they were cut off). */
function heardUntil50s(): GateJob {
  let job = runningGateJob(60, [US, EU]);
  for (const region of [US, EU]) {
    job = onProgressReport(job, progressReport(region, { sentAt: T0 + seconds(50), lastProgressAt: T0 + seconds(50) }), T0 + seconds(50), policy).state;
  }
  return { ...job, timerDueAt: T0 + seconds(60) + grace };
}

/**
 * Condition 1's grace (a report interval and its slack) lets a grant made just before the deadline
 * reach the gate. A gate that could not hear during it (down, or the regions cut off) holds a view in
 * which such a grant may be missing: it waits one more grace for the reports before it declares
 * (seed 000 Scenario 2: the gate rebuilds its state from the reports, then declares).
 */
describe('condition 1 when the gate has not heard a region since before its deadline', () => {
  it('the gate waits one more grace from the wake-up that found its view stale, then declares on what it has', () => {
    // Act: the wake-up at 60 s + grace; then the one it armed, with still nothing heard.
    const waited = fire(heardUntil50s(), T0 + seconds(60) + grace);
    const declared = fire(waited.state, T0 + seconds(60) + 2 * grace);

    // Assess
    expect(waited.state).toMatchObject({ globallyTimedOut: false, timerDueAt: T0 + seconds(60) + 2 * grace, extensionReportsAwaitedUntil: T0 + seconds(60) + 2 * grace });
    expect(globalTimeoutsByRegion(waited.effects)).toEqual({});
    expect(declared.state).toMatchObject({ globallyTimedOut: true, timeoutReason: 'timeout', decidedAt: T0 + seconds(60) + 2 * grace });
    expect(globalTimeoutsByRegion(declared.effects)).toEqual({ [US]: 1, [EU]: 1 });
  });

  it('a grant heard during the wait moves the decision to the new deadline plus the grace (the review case: a gate back from an outage)', () => {
    // Prepare: the wake-up finds the view stale and waits.
    const waited = fire(heardUntil50s(), T0 + seconds(60) + grace);

    // Act: us-east-1's next periodic report (80 s) carries the 30 s it granted at 55 s while the gate heard nothing.
    const heard = onProgressReport(
      waited.state,
      progressReport(US, { sentAt: T0 + seconds(80), lastProgressAt: T0 + seconds(80), totalExtensions: 30, maxExtension: 30, workers: 1 }),
      T0 + seconds(80),
      policy,
    ).state;
    const atWaitsEnd = fire(heard, T0 + seconds(60) + 2 * grace);
    const atNewDue = fire(atWaitsEnd.state, T0 + seconds(90) + grace);

    // Assess: not at the wait's end (90 s: the new deadline is 90 s, decided at 90 s + grace); then
    // declared at once, the wait being spent, though eu-west-1 is still unheard since 50 s.
    expect(atWaitsEnd.state).toMatchObject({ globallyTimedOut: false, timerDueAt: T0 + seconds(90) + grace });
    expect(atNewDue.state).toMatchObject({ globallyTimedOut: true, decidedAt: T0 + seconds(90) + grace });
  });

  it('a wake-up long overdue (the gate was down for minutes) waits the grace from when it fires', () => {
    // Act: the gate comes back 5 minutes past its wake-up.
    const late = T0 + seconds(60) + grace + seconds(300);
    const waited = fire(heardUntil50s(), late);

    // Assess
    expect(waited.state).toMatchObject({ globallyTimedOut: false, timerDueAt: late + grace });
    expect(fire(waited.state, late + grace).state.globallyTimedOut).toBe(true);
  });

  it('a gate that heard every region since its deadline declares at the due time, without waiting', () => {
    // Prepare: both regions' reports of 70 s arrived (us-east-1's deadline 60 s; eu-west-1 granted 5 s, deadline 65 s).
    let job = heardFromEveryRegion(heardUntil50s(), T0 + seconds(70));
    job = onProgressReport(job, progressReport(EU, { sentAt: T0 + seconds(70), lastProgressAt: T0 + seconds(70), totalExtensions: 5, maxExtension: 5, workers: 1 }), T0 + seconds(70), policy).state;

    // Act
    const fired = fire(job, T0 + seconds(65) + grace);

    // Assess
    expect(fired.state).toMatchObject({ globallyTimedOut: true, decidedAt: T0 + seconds(65) + grace });
    expect(fired.state.extensionReportsAwaitedUntil).toBeUndefined();
  });

  it('a region whose newest report came before the deadline it carried counts as unheard, though it reported after the plain deadline', () => {
    // Prepare: eu-west-1 reported at 70 s a 30 s total (deadline 90 s), nothing since; us-east-1 was heard at 100 s.
    let job = onProgressReport(heardUntil50s(), progressReport(EU, { sentAt: T0 + seconds(70), lastProgressAt: T0 + seconds(70), totalExtensions: 30, maxExtension: 30, workers: 1 }), T0 + seconds(70), policy).state;
    job = onProgressReport(job, progressReport(US, { sentAt: T0 + seconds(100), lastProgressAt: T0 + seconds(100) }), T0 + seconds(100), policy).state;

    // Act
    const fired = fire(job, T0 + seconds(90) + grace);

    // Assess: eu-west-1 may have granted more between 70 s and 90 s.
    expect(fired.state).toMatchObject({ globallyTimedOut: false, extensionReportsAwaitedUntil: T0 + seconds(90) + 2 * grace });
  });
});
