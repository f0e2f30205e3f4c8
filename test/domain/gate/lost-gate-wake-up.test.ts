import { describe, expect, it } from 'vitest';
import { cancelGateJob } from '../../../shared/domain/gate/cancel-gate-job.js';
import { onGateTimerFired } from '../../../shared/domain/gate/on-gate-timer-fired.js';
import { LOST_WAKE_UP_GRACE_MS } from '../../../shared/domain/job-timer.js';
import { AP, EU, T0, US, policy, regionsCancelled, runningGateJob, seconds } from './gate-fixtures.js';

/**
 * Scenario (events review, noticed): the gate's wake-up check dropped every wake-up but the one last
 * asked for, even when that one was overdue past the grace (presumed lost: its schedule's arming
 * dropped). A region's job's wake-up check lets an older one act in its place; the gate's waited
 * for the next sweep, up to a minute more of re-sends not sent.
 * Correct: as a job's, an older wake-up acts once the job's own is overdue past the grace, and only
 * one re-send chain follows: the lost one, arriving after all, is superseded in turn.
 */
describe("a gate job's wake-up that comes after its own was lost", () => {
  // Prepare: cancelled at 30 s, re-send armed for 40 s; the 40 s one re-sent and armed 50 s, which is lost
  const cancelled = cancelGateJob(runningGateJob(), undefined, T0 + seconds(30), policy).state;
  const firstResend = { fenceToken: 1, dueAt: T0 + seconds(40) };
  const resent = onGateTimerFired(cancelled, firstResend, T0 + seconds(40), policy).state;
  const lost = { fenceToken: 1, dueAt: T0 + seconds(50) };

  it('acts in its place past the grace: the re-send goes out and the next one is armed', () => {
    // Act: the 40 s wake-up delivered again (a redelivery), past the grace after 50 s
    const late = onGateTimerFired(resent, firstResend, T0 + seconds(50) + LOST_WAKE_UP_GRACE_MS, policy);
    // Assess
    expect(resent.timerDueAt).toBe(lost.dueAt);
    expect(late.ignored).toBeUndefined();
    expect(regionsCancelled(late.effects)).toEqual([AP, EU, US].sort());
    expect(late.state.timerDueAt).toBe(T0 + seconds(65));
  });

  it('within the grace it is still superseded: the own wake-up may be on its way', () => {
    const early = onGateTimerFired(resent, firstResend, T0 + seconds(50) + LOST_WAKE_UP_GRACE_MS - 1, policy);
    expect(early.ignored).toBe('superseded_timer');
    expect(early.state).toBe(resent);
  });

  it('the lost one, arriving after the older one acted, starts no second re-send chain', () => {
    const acted = onGateTimerFired(resent, firstResend, T0 + seconds(55), policy).state;
    const arrivedAfterAll = onGateTimerFired(acted, lost, T0 + seconds(56), policy);
    expect(arrivedAfterAll.ignored).toBe('superseded_timer');
    expect(arrivedAfterAll.effects).toEqual([]);
  });
});
