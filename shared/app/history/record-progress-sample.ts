import type { Job, Workflow } from '../../domain/job.js';
import type { EpochMs } from '../../domain/time.js';
import type { ManagerDeps } from '../manager-deps.js';

/**
 * A sampled history entry for a worker's report: `progress` when it advanced the workflow (a higher
 * value or another step), `heartbeat` when it only said the worker is alive. Only reports that pass the progress
 * coalescing are sampled, and each sample bucket keeps one per kind (history-entry.ts), so the hot
 * path adds at most one small write, and only when it writes anyway.
 */
export async function recordProgressSample(
  deps: Pick<ManagerDeps, 'history' | 'telemetry'>,
  job: Job,
  workflow: Workflow,
  report: { advanced: boolean; progress: number | undefined },
  at: EpochMs,
): Promise<void> {
  if (!deps.history) return;
  const { progress } = report;
  const entry = {
    kind: report.advanced ? ('progress' as const) : ('heartbeat' as const),
    at,
    workflowId: workflow.workflowId,
    workerId: workflow.workerId,
    ...(progress !== undefined ? { progress } : {}),
  };
  try {
    await deps.history.append(job.jobId, [entry], { startedAt: job.tracking.startedAt, timeoutSeconds: job.tracking.timeoutSeconds });
  } catch (error) {
    deps.telemetry.warn('progress sample not recorded', { jobId: job.jobId, error: String(error) });
  }
}
