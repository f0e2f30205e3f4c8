import { effectiveDeadline } from '../domain/deadlines.js';
import { decodeGrants, type WorkerGrantRecord } from '../domain/extension-ledger.js';
import { plainWorkerId } from '../domain/tenant.js';
import { workflowState, type Job, type Workflow } from '../domain/job.js';
import { stuckWorkflows } from '../domain/stuck-workflows.js';
import { toIso, type EpochMs } from '../domain/time.js';
import type { WorkflowTokens } from './workflow-tokens.js';

/** The contract's job answer (GET /jobs/{jobId}). */
/** Each worker's grant that counts toward the deadline, with what it said when it asked (AD-26). */
function workerExtensions(job: Job, records: readonly WorkerGrantRecord[]) {
  const grants = decodeGrants(job.tracking.workerGrants);
  return records.flatMap((record) => {
    const grant = grants.get(record.workerIndex);
    if (!grant) return [];
    return [
      {
        workerId: plainWorkerId(record.workerId),
        extensionSeconds: grant.seconds,
        extensionsGranted: grant.count,
        ...(record.epoch === grant.epoch && record.count === grant.count
          ? {
              grantedAt: toIso(record.grantedAt),
              ...(record.estimatedCompletion !== undefined ? { estimatedCompletion: record.estimatedCompletion } : {}),
              ...(record.activeWorkflowCount !== undefined ? { activeWorkflowCount: record.activeWorkflowCount } : {}),
            }
          : {}),
      },
    ];
  });
}

export function jobView(job: Job, workflows: readonly Workflow[], now: EpochMs, grantRecords: readonly WorkerGrantRecord[] = []) {
  const t = job.tracking;
  const stuck = new Set(stuckWorkflows(job, workflows, now).map((w) => w.workflowId));
  return {
    jobId: job.jobId,
    region: job.region,
    status: job.status,
    strategy: t.strategy,
    ...(t.gateRegion !== undefined ? { gateRegion: t.gateRegion } : {}),
    fenceToken: t.fenceToken,
    ...(t.timeoutReason !== undefined && job.status !== 'RUNNING' ? { timeoutReason: t.timeoutReason } : {}),
    ...(job.cancelReason !== undefined ? { cancelReason: job.cancelReason } : {}),
    deadlineAt: toIso(effectiveDeadline(t)),
    ...(job.finishedAt !== undefined ? { finishedAt: toIso(job.finishedAt) } : {}),
    timeoutTracking: {
      startedAt: toIso(t.startedAt),
      lastProgressAt: toIso(t.lastProgressAt),
      timeoutSeconds: t.timeoutSeconds,
      stuckThresholdSeconds: t.stuckThresholdSeconds,
      totalExtensionsGranted: t.totalExtensionsGranted,
      workersWithExtensions: t.workersWithExtensions,
      workerExtensions: workerExtensions(job, grantRecords),
      effectiveDeadlineAt: toIso(effectiveDeadline(t)),
      locallyTimedOut: t.locallyTimedOut,
      globallyTimedOut: t.globallyTimedOut,
    },
    workflows: workflows.map((w) => ({
      workflowId: w.workflowId,
      workerId: w.workerId,
      state: workflowState(job, w),
      ...(w.lastProgressAt !== undefined ? { lastProgressAt: toIso(w.lastProgressAt) } : {}),
      ...(w.lastHeartbeatAt !== undefined ? { lastHeartbeatAt: toIso(w.lastHeartbeatAt) } : {}),
      ...(w.progress !== undefined ? { progress: w.progress } : {}),
      ...(w.step !== undefined ? { step: w.step } : {}),
      stuck: stuck.has(w.workflowId),
    })),
  };
}

/** The contract's submit answer: the workflows with their worker tokens. */
export function submittedJobView(job: Job, workflows: readonly Workflow[], tokens: WorkflowTokens) {
  return {
    jobId: job.jobId,
    status: job.status,
    strategy: job.tracking.strategy,
    fenceToken: job.tracking.fenceToken,
    deadlineAt: toIso(effectiveDeadline(job.tracking)),
    workflows: workflows.map((w) => ({
      workflowId: w.workflowId,
      workerId: w.workerId,
      token: tokens.sign(job.jobId, w.workflowId, w.workerId, job.tenant),
    })),
  };
}
