import { onGateTimerFired } from '../../domain/gate/on-gate-timer-fired.js';
import type { TimerRequest } from '../../ports/timers.js';
import { isDropped } from '../fire-job-timer.js';
import { decideGateJob } from './decide-gate-job.js';
import type { GateDeps } from './gate-deps.js';

/** The gate job's wake-up: check the global deadline or re-send the decision, then publish the outbox. */
export async function fireGateTimer(deps: GateDeps, timer: TimerRequest): Promise<void> {
  const job = await deps.gates.get(timer.jobId);
  if (!job) return;
  // decideAndSave publishes a leftover outbox after deciding, so a bus outage cannot hold the decision back.
  const { decision } = await decideGateJob(deps, timer.jobId, (current) => onGateTimerFired(current, timer, deps.clock.now(), deps.policy), job);
  if (decision.ignored === undefined && decision.state.globallyTimedOut && !job.globallyTimedOut) {
    deps.telemetry.info('global timeout declared', {
      jobId: job.jobId,
      region: deps.gateRegion,
      fenceToken: decision.state.timeoutFenceToken,
      reason: decision.state.timeoutReason,
    });
  }
  if (isDropped(decision.ignored)) deps.telemetry.metric('WakeUpDropped', { reason: decision.ignored });
}
