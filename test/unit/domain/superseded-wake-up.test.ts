import { describe, expect, it } from 'vitest';
import { sweptWakeUp } from '../../../shared/domain/job-timer.js';
import { onTimerFired } from '../../../shared/domain/timer-fired.js';
import { at, context, runningJob, timerOf, extendedBy } from '../../support/fixtures.js';

describe('only the wake-up a job last asked for may act', () => {
  it('a late duplicate of a wake-up the job has since re-armed past changes nothing and arms nothing', () => {
    // Prepare: armed for 60 s, extended to 90 s; the 60 s wake-up re-armed it for 90 s
    const extended = extendedBy(runningJob({ timeoutSeconds: 60 }), 0, 30, at(10));
    const firstWake = timerOf(extended);
    const rearmed = onTimerFired(extended, firstWake, context(at(60))).state;
    // Act: the same 60 s wake-up delivered again (a sweep and its queue message both arriving)
    const duplicate = onTimerFired(rearmed, firstWake, context(at(61)));
    // Assess
    expect(firstWake.dueAt).toBe(at(60));
    expect(rearmed.timerDueAt).toBe(at(90));
    expect(duplicate.state).toBe(rearmed);
    expect(duplicate.effects).toEqual([]);
    expect(duplicate.ignored).toBe('superseded_timer');
  });

  it('the current wake-up still decides', () => {
    // Prepare
    const extended = extendedBy(runningJob({ timeoutSeconds: 60 }), 0, 30, at(10));
    const rearmed = onTimerFired(extended, timerOf(extended), context(at(60))).state;
    // Act
    const { state } = onTimerFired(rearmed, timerOf(rearmed), context(at(90)));
    // Assess
    expect(state.status).toBe('TIMED_OUT');
  });
});

describe('a wake-up that arrives after the job\'s own wake-up was lost acts in its place', () => {
  // Prepare: armed for 60 s, extended to 70 s; the 60 s wake-up re-armed it for 70 s, and that
  // 70 s wake-up was lost. The 60 s one is delivered again, late (a redelivery).
  const extended = extendedBy(runningJob({ timeoutSeconds: 60 }), 0, 10, at(10));
  const firstWake = timerOf(extended);
  const rearmed = onTimerFired(extended, firstWake, context(at(60))).state;

  it('past the grace after the lost one was due, it decides: the job times out without waiting for the sweep', () => {
    // Act
    const decision = onTimerFired(rearmed, firstWake, context(at(75)));
    // Assess
    expect(rearmed.timerDueAt).toBe(at(70));
    expect(decision.state.status).toBe('TIMED_OUT');
  });

  it('within the grace it is still superseded: the job\'s own wake-up may be on its way', () => {
    // Act
    const decision = onTimerFired(rearmed, firstWake, context(at(74.999)));
    // Assess
    expect(decision.ignored).toBe('superseded_timer');
    expect(decision.state).toBe(rearmed);
  });
});

describe('what a sweep fires for an index entry', () => {
  const extended = extendedBy(runningJob({ timeoutSeconds: 60 }), 0, 10, at(10));
  const rearmed = onTimerFired(extended, timerOf(extended), context(at(60))).state;
  const lagging = { fenceToken: rearmed.tracking.fenceToken - 1, dueAt: at(60) };

  it('the job\'s own wake-up, once it is overdue past the grace', () => {
    expect(sweptWakeUp(rearmed, rearmed.tracking.fenceToken, lagging, at(75))).toEqual({ fenceToken: rearmed.tracking.fenceToken, dueAt: at(70) });
  });

  it('the entry as read, while the job\'s own wake-up may still arrive', () => {
    expect(sweptWakeUp(rearmed, rearmed.tracking.fenceToken, lagging, at(74))).toBe(lagging);
  });
});
