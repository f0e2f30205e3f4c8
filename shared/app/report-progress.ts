import { effectiveDeadline } from '../domain/deadlines.js';
import { JobNotFoundError, WorkflowNotFoundError } from '../domain/errors.js';
import { isTerminal } from '../domain/job.js';
import { progressWrites } from '../domain/record-progress.js';
import { toIso } from '../domain/time.js';
import { newWorker, onHealthcheck, type WorkerHealth } from '../domain/worker-health.js';
import { VersionConflictError } from '../ports/job-store.js';
import { recordProgressSample } from './history/record-progress-sample.js';
import type { ManagerDeps } from './manager-deps.js';

export interface ProgressInput {
  jobId: string;
  workflowId: string;
  workerId: string;
  progress?: number;
  token: string;
}

/**
 * The hot path: one batched read, then only the coalesced writes that are due. A report is also
 * the worker's healthcheck (AD-26). Once the job has ended the answer tells the worker to stop.
 */
export async function reportProgress(deps: ManagerDeps, input: ProgressInput) {
  deps.tokens.verify(input.token, input.workerId, { jobId: input.jobId, workflowId: input.workflowId });
  const now = deps.clock.now();
  const { job, workflow, worker } = await deps.jobs.getProgressContext(input.jobId, input.workflowId, input.workerId);
  if (!job) throw new JobNotFoundError(input.jobId);
  if (!workflow) throw new WorkflowNotFoundError(input.jobId, input.workflowId);

  const writes = progressWrites(job, workflow, now);
  await Promise.all([
    writes.job ? deps.jobs.touchJobProgress(job.jobId, now) : undefined,
    writes.workflow ? deps.jobs.touchWorkflowProgress(job.jobId, workflow.workflowId, now, input.progress) : undefined,
    recordHealthcheck(deps, input.workerId, worker, now),
    writes.job || writes.workflow ? recordProgressSample(deps, job, workflow, input.progress, now) : undefined,
  ]);
  return { status: job.status, cancel: isTerminal(job.status), deadlineAt: toIso(effectiveDeadline(job.tracking)) };
}

async function recordHealthcheck(deps: ManagerDeps, workerId: string, worker: WorkerHealth | undefined, now: number) {
  try {
    if (!worker) {
      await deps.jobs.saveWorker(newWorker(workerId, now), 0);
      return;
    }
    const write = onHealthcheck(worker, now, deps.policy);
    if (write.kind === 'touch') await deps.jobs.touchWorkerHealth(workerId, now);
    if (write.kind === 'recover') {
      await deps.jobs.saveWorker(write.worker, worker.version);
      deps.telemetry.info('worker recovered: fresh extension budget', { workerId, region: deps.region });
    }
  } catch (error) {
    // A concurrent healthcheck of the same worker got there first; it recorded the same fact.
    if (!(error instanceof VersionConflictError)) throw error;
  }
}
