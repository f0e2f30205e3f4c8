import { onGateTimerFired } from '../../domain/gate/on-gate-timer-fired.js';
import { sweptWakeUp } from '../../domain/job-timer.js';
import type { TimerRequest } from '../../ports/timers.js';
import { isDropped } from '../fire-job-timer.js';
import { allRegionsFinal } from '../../domain/gate/gate-job.js';
import { flushOutbox } from '../decide-and-save.js';
import { gateViews } from '../history/record-history.js';
import { decideGateJob, gateStateStore } from './decide-gate-job.js';
import type { GateDeps } from './gate-deps.js';

/**
 * The gate job's wake-up: check the global deadline or re-send the decision, then publish the outbox.
 * From the sweep, a lagging index entry (an older fence) stands for the job's own wake-up once that
 * one is presumed lost, as the managers' sweep does (`sweptWakeUp`): the sweep's pass is not wasted.
 */
export async function fireGateTimer(deps: GateDeps, arrived: TimerRequest, from: 'queue' | 'sweep' = 'queue'): Promise<void> {
  const job = await deps.gates.get(arrived.jobId);
  if (!job) return;
  if (from === 'sweep' && allRegionsFinal(job) && arrived.fenceToken === job.timeoutFenceToken) {
    // Nothing left to decide, only the outbox: its retry is written before the publish, so a sweep
    // cut off on a hung bus does not find the same entries first next minute (as the managers' sweep).
    deps.telemetry.metric('WakeUpDropped', { reason: 'all_regions_final' });
    await flushOutbox(gateStateStore(deps.gates, deps.history && gateViews(deps.history, deps.telemetry)), deps, job, deps.clock.now(), false, true);
    return;
  }
  const timer = from === 'sweep' ? { ...arrived, ...sweptWakeUp(job, job.timeoutFenceToken, arrived, deps.clock.now()) } : arrived;
  // decideAndSave publishes a leftover outbox after deciding, so a bus outage cannot hold the decision back.
  const { decision } = await decideGateJob(deps, arrived.jobId, (current) => onGateTimerFired(current, timer, deps.clock.now(), deps.policy), job);
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
