import type { Effect } from '../effects.js';
import type { EpochMs } from '../time.js';
import type { TimerRequest } from '../../ports/timers.js';
import type { GateJob } from './gate-job.js';

/** The wake-up a gate job's state asks for, as the timer index and the backstop sweep see it. */
export function gateTimerRequest(job: GateJob): TimerRequest | undefined {
  if (job.timerDueAt === undefined) return undefined;
  return { scope: 'gate', jobId: job.jobId, fenceToken: job.timeoutFenceToken, dueAt: job.timerDueAt };
}

/** Records the gate job's next wake-up (the sparse timer index) and asks for it to be armed. */
export function armGateTimer(job: GateJob, dueAt: EpochMs): { job: GateJob; effects: Effect[] } {
  return {
    job: { ...job, timerDueAt: dueAt },
    effects: [{ type: 'ArmTimer', timer: { scope: 'gate', jobId: job.jobId, fenceToken: job.timeoutFenceToken, dueAt } }],
  };
}

/** The gate has nothing left to do on its own for this job. */
export function disarmGateTimer(job: GateJob): { job: GateJob; effects: Effect[] } {
  const { timerDueAt: _disarmed, ...rest } = job;
  return { job: rest, effects: [{ type: 'DisarmTimer', scope: 'gate', jobId: job.jobId }] };
}
