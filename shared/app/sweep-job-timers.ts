import { backOffManagerWakeUp, fireManagerTimer } from './fire-manager-timer.js';
import type { ManagerDeps } from './manager-deps.js';
import { sweepDueTimers, type SweepOptions } from './sweep-due-timers.js';

export {
  SWEEP_BUDGET_MS,
  SWEEP_CONCURRENCY,
  SWEEP_FIRE_LIMIT_MS,
  SWEEP_GRACE_MS,
  SWEEP_QUERY_BATCH,
  SWEEP_RETRY_MS,
  SWEEP_RETRY_PAUSE_MS,
  POISON_AFTER_FAILING_SWEEPS,
  type SweepOptions,
} from './sweep-due-timers.js';

/**
 * The backstop: fires every job wake-up the sparse timer index says is overdue. A lost schedule,
 * a lost SQS message, a crash, or an emulator whose Scheduler never fires cannot leak a job.
 */
export const sweepJobTimers = (deps: ManagerDeps, options?: SweepOptions): Promise<{ fired: number }> =>
  sweepDueTimers(
    {
      clock: deps.clock,
      telemetry: deps.telemetry,
      attributes: { region: deps.region },
      findDueTimers: (dueBy, limit) => deps.jobs.findDueTimers(dueBy, limit),
      fire: (timer) => fireManagerTimer(deps, timer, 'sweep'),
      backOff: (timer, dueAfter) => backOffManagerWakeUp(deps, timer, dueAfter),
    },
    { stopwatch: deps.stopwatch, ...options },
  );
