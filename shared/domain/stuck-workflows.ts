import { secondsToMs, type EpochMs } from './time.js';
import { workflowState, type Job, type Workflow } from './job.js';

/**
 * Seed 001 §10.6.5: the still-active workflows without progress for the job's stuck threshold. A
 * workflow that only heartbeats is among them (seed 000, problem 4).
 */
export function stuckWorkflows(job: Job, workflows: readonly Workflow[], now: EpochMs): Workflow[] {
  const thresholdMs = secondsToMs(job.tracking.stuckThresholdSeconds);
  return workflows.filter((w) => {
    const state = workflowState(job, w);
    return (state === 'pending' || state === 'running') && now - (w.lastProgressAt ?? job.tracking.startedAt) >= thresholdMs;
  });
}
