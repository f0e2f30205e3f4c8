import { progressCoalesceMs } from './deadlines.js';
import { secondsToMs, type EpochMs } from './time.js';
import { workflowState, type Job, type Workflow } from './job.js';

/**
 * Seed 001 §10.6.5: the still-active workflows without progress for the job's stuck threshold. A
 * workflow that only heartbeats is among them (seed 000, problem 4). Its stored `lastProgressAt` may
 * lag an advance that was coalesced, so it gets the same window of slack as the job's stuck deadline.
 */
export function stuckWorkflows(job: Job, workflows: readonly Workflow[], now: EpochMs): Workflow[] {
  const { stuckThresholdSeconds } = job.tracking;
  const quietMs = secondsToMs(stuckThresholdSeconds) + progressCoalesceMs(stuckThresholdSeconds);
  return workflows.filter((w) => {
    const state = workflowState(job, w);
    return state === 'running' && now - (w.lastProgressAt ?? job.tracking.startedAt) >= quietMs;
  });
}
