import type { Effect } from '../effects.js';
import { CLOCK_SKEW_ALLOWANCE_MS } from '../job-timer.js';
import type { EpochMs } from '../time.js';
import type { TimerRequest } from '../../ports/timers.js';
import type { GateJob } from './gate-job.js';

/** The wake-up a gate job's state asks for, as the timer index and the backstop sweep see it. */
export function gateTimerRequest(job: GateJob): TimerRequest | undefined {
  if (job.timerDueAt === undefined) return undefined;
  return { scope: 'gate', jobId: job.jobId, fenceToken: job.timeoutFenceToken, dueAt: job.timerDueAt };
}

/**
 * Records the gate job's next wake-up (the sparse timer index) and asks for it to be armed, keeping
 * how far ahead of `now` the furthest of its wake-ups was due (a job stored before that was kept
 * stays unknown).
 */
export function armGateTimer(job: GateJob, dueAt: EpochMs, now: EpochMs): { job: GateJob; effects: Effect[] } {
  const farthest = job.farthestWakeUpAheadMs === undefined ? {} : { farthestWakeUpAheadMs: Math.max(job.farthestWakeUpAheadMs, dueAt - now) };
  return {
    job: { ...job, timerDueAt: dueAt, ...farthest },
    effects: [{ type: 'ArmTimer', timer: { scope: 'gate', jobId: job.jobId, fenceToken: job.timeoutFenceToken, dueAt } }],
  };
}

/**
 * The gate has nothing left to do on its own for this job. Its wake-ups have no bound of their own (the
 * global deadline moves with every region's grants and start), so the withdrawal says the furthest one
 * recorded: a job whose wake-ups were all within SQS's 15 minutes asks Scheduler nothing, and one
 * armed further ahead at any time, even before shorter ones, is deleted. The allowance covers a
 * decision's `now` read on a clock behind the one of the Lambda that arms; unknown, it is deleted.
 */
export function disarmGateTimer(job: GateJob): { job: GateJob; effects: Effect[] } {
  const { timerDueAt: _disarmed, ...rest } = job;
  return { job: rest, effects: [withdrawal(job)] };
}

/** Withdraws the wake-ups armed at the job's current decision counter (the fence in a schedule's name). */
function withdrawal(job: GateJob): Effect {
  const bound = job.farthestWakeUpAheadMs === undefined ? {} : { armedAtMostMsAhead: job.farthestWakeUpAheadMs + CLOCK_SKEW_ALLOWANCE_MS };
  return { type: 'DisarmTimer', timer: { scope: 'gate', jobId: job.jobId, fenceToken: job.timeoutFenceToken }, ...bound };
}

/**
 * The gate decides (a global timeout or a cancel): the decision counter goes up, so every wake-up
 * armed before is stale and is withdrawn now (a 2-hour job cancelled at once deletes the schedule
 * its first wake-up made). How far ahead wake-ups were armed is counted afresh for the new counter,
 * whose own withdrawal concerns only the wake-ups armed under it.
 */
export function withNextDecisionFence(job: GateJob): { job: GateJob; effects: Effect[] } {
  return { job: { ...job, timeoutFenceToken: job.timeoutFenceToken + 1, farthestWakeUpAheadMs: 0 }, effects: [withdrawal(job)] };
}
