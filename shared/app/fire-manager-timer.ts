import type { EpochMs } from '../domain/time.js';
import type { TimerRequest } from '../ports/timers.js';
import { fireJobTimer } from './fire-job-timer.js';
import type { ManagerDeps } from './manager-deps.js';
import { backOffPoolWakeUp, firePoolTimer } from './pools/fire-pool-timer.js';
import { backOffFailedWakeUp } from './decide-and-save.js';
import { jobStateStore } from './job-state-store.js';

/** A region manager's wake-up: a job's or a pool item's (they share the timer queue and index). */
export const fireManagerTimer = (deps: ManagerDeps, timer: TimerRequest, from: 'queue' | 'sweep' = 'queue'): Promise<void> =>
  timer.scope === 'pool' ? firePoolTimer(deps, timer, from) : fireJobTimer(deps, timer, from);

/** The sweep could not fire this wake-up: move it to `dueAfter` on its own item, so it cannot block the others. */
export const backOffManagerWakeUp = (deps: ManagerDeps, timer: TimerRequest, dueAfter: (timerFailures: number) => EpochMs): Promise<void> =>
  timer.scope === 'pool' ? backOffPoolWakeUp(deps, timer, dueAfter) : backOffFailedWakeUp(jobStateStore(deps.jobs), timer.jobId, timer.dueAt, dueAfter);
