import { describe, expect, it } from 'vitest';
import { cancelJob } from '../../../shared/domain/cancel-job.js';
import { onGlobalCancel, onGlobalTimeout } from '../../../shared/domain/gate-decisions.js';
import { OWN_CANCEL_RESEND_SECONDS } from '../../../shared/domain/own-cancel-to-gate.js';
import { onTimerFired } from '../../../shared/domain/timer-fired.js';
import type { Job } from '../../../shared/domain/job.js';
import { armedTimers, at, context, gateCoordinatedJob, publishedEvents, runningJob, timerOf } from '../../support/fixtures.js';

const finalStatuses = (effects: Parameters<typeof publishedEvents>[0]) => publishedEvents(effects, 'JobFinalStatus').map((event) => event.detail);

describe("a gate-coordinated job cancelled by a call to its region asks the gate to cancel it everywhere, until the gate answers", () => {
  it('ends CANCELLED at once; its final status asks for the cancel everywhere with the reason; a wake-up is armed one report interval on', () => {
    // Act
    const { state, effects } = cancelJob(gateCoordinatedJob(), 'wrong input', context(at(30)));
    // Assess
    expect(state.status).toBe('CANCELLED');
    expect(state.cancelToSpread).toEqual({ sends: 1, nextSendAt: at(40) });
    expect(finalStatuses(effects)).toEqual([expect.objectContaining({ status: 'CANCELLED', cancelReason: 'wrong input', cancelEverywhere: true })]);
    expect(armedTimers(effects)).toEqual([{ scope: 'job', jobId: 'job-1', fenceToken: 1, dueAt: at(40) }]);
    expect(state.timerDueAt).toBe(at(40));
  });

  it('a local-authority job has no gate to ask: cancelled here, nothing re-sent', () => {
    const { state, effects } = cancelJob(runningJob(), 'wrong input', context(at(30)));
    expect(state.cancelToSpread).toBeUndefined();
    expect(armedTimers(effects)).toEqual([]);
  });

  it('re-sends when due, not before, and gives up after an hour of sends', () => {
    // Prepare
    let job: Job = cancelJob(gateCoordinatedJob(), undefined, context(at(30))).state;
    // Act: a wake-up before its time (an outbox retry, an old one) sends nothing
    const early = onTimerFired(job, timerOf(job), context(at(35)));
    expect(early.state).toBe(job);
    expect(early.effects).toEqual([]);
    // the due one sends again and re-arms
    const due = onTimerFired(job, timerOf(job), context(at(40)));
    expect(finalStatuses(due.effects)).toEqual([expect.objectContaining({ status: 'CANCELLED', cancelEverywhere: true })]);
    expect(due.state.cancelToSpread).toEqual({ sends: 2, nextSendAt: at(50) });
    // Assess: the gate never answers; the sends stop, with no wake-up left
    let sends = 2;
    for (job = due.state; job.cancelToSpread !== undefined && sends < 10_000; ) {
      const fired = onTimerFired(job, timerOf(job), context(job.cancelToSpread.nextSendAt));
      sends += finalStatuses(fired.effects).length;
      job = fired.state;
    }
    expect(sends).toBe(OWN_CANCEL_RESEND_SECONDS / 10);
    expect(job.timerDueAt).toBeUndefined();
    expect(onTimerFired(job, timerOf(job), context(at(10_000))).effects).toEqual([]);
  });

  it("the gate's answer (its cancel, or a global timeout decided before it heard) stops the sends; the final status goes back without the ask", () => {
    // Prepare
    const cancelled = cancelJob(gateCoordinatedJob(), 'wrong input', context(at(30))).state;
    for (const answer of [
      (job: Job) => onGlobalCancel(job, 'wrong input', context(at(31))),
      (job: Job) => onGlobalTimeout(job, { fenceToken: 0 }, context(at(31))),
    ]) {
      // Act
      const { state, effects } = answer(cancelled);
      // Assess
      expect(state.status).toBe('CANCELLED');
      expect(state.cancelToSpread).toBeUndefined();
      expect(state.timerDueAt).toBeUndefined();
      expect(finalStatuses(effects)).toEqual([expect.not.objectContaining({ cancelEverywhere: true })]);
      // A second answer (a duplicate) changes nothing and only re-announces the final status.
      const again = answer(state);
      expect(again.state).toBe(state);
      expect(finalStatuses(again.effects)).toEqual([expect.not.objectContaining({ cancelEverywhere: true })]);
    }
  });
});
