import { backOffFailedWakeUp } from '../decide-and-save.js';
import { sweepDueTimers, type SweepOptions } from '../sweep-due-timers.js';
import { gateStateStore } from './decide-gate-job.js';
import { fireGateTimer } from './fire-gate-timer.js';
import type { GateDeps } from './gate-deps.js';

/** The gate's backstop over its sparse timer index, fair across shards, failing wake-ups backed off. */
export const sweepGateTimers = (deps: GateDeps, options?: SweepOptions): Promise<{ fired: number }> =>
  sweepDueTimers(
    {
      clock: deps.clock,
      telemetry: deps.telemetry,
      attributes: { region: deps.gateRegion },
      findDueTimers: (dueBy, limit) => deps.gates.findDueTimers(dueBy, limit),
      fire: (timer) => fireGateTimer(deps, timer, 'sweep'),
      backOff: (timer, dueAfter) => backOffFailedWakeUp(gateStateStore(deps.gates), timer.jobId, timer.dueAt, dueAfter),
    },
    { stopwatch: deps.stopwatch, ...options },
  );
