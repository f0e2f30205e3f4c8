import type { TimerRequest } from '../ports/timers.js';
import { fireJobTimer } from './fire-job-timer.js';
import type { ManagerDeps } from './manager-deps.js';
import { firePoolTimer } from './pools/fire-pool-timer.js';

/** A region manager's wake-up: a job's or a pool item's (they share the timer queue and index). */
export const fireManagerTimer = (deps: ManagerDeps, timer: TimerRequest): Promise<void> =>
  timer.scope === 'pool' ? firePoolTimer(deps, timer) : fireJobTimer(deps, timer);
