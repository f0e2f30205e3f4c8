import { grantOfRequest, remainingExtensions, requestExtension as decideExtension } from '../domain/extension-budget.js';
import { metric } from '../domain/effects.js';
import { toIso } from '../domain/time.js';
import { healthDeadline, newWorker, workerStatus, type WorkerHealth } from '../domain/worker-health.js';
import { VersionConflictError } from '../ports/job-store.js';
import { runEffects } from './effect-runner.js';
import { applyGrantToJobs } from './apply-grant.js';
import { currentWorkerHealth } from './current-worker-health.js';
import type { ManagerDeps } from './manager-deps.js';
import { retireGrantsOnJobs } from './retire-worker-grants.js';
import { JobNotFoundError } from '../domain/errors.js';
import { assertIssuedFor } from './workflow-tokens.js';
import { belongsTo, isTerminal, WorkflowMark } from '../domain/job.js';
import { ownTimeoutAt } from '../domain/deadlines.js';
import { liveEffectiveDeadline } from '../domain/worker-extensions.js';
import { retiredGrantsOf } from './retired-grants.js';

export interface ExtensionInput {
  workerId: string;
  token: string;
  currentProgress: number;
  /** AD-26 `estimated_completion` (ISO 8601) and `active_workflow_count`: recorded, shown on the job. */
  estimatedCompletion?: string;
  activeWorkflowCount?: number;
  /** The worker's name for this request, the same in each repeat of it: a repeat is answered with the grant the request got. */
  requestId?: string;
}

/** AD-26's answer; `denialReason` only when not granted. */
export interface ExtensionAnswer {
  granted: boolean;
  extensionSeconds: number;
  newDeadline: string;
  remainingExtensions: number;
  denialReason?: string;
}

const MAX_ATTEMPTS = 5;

/** AD-26 extension request; a grant moves the deadline of every RUNNING job the worker is active in. */
export async function requestExtension(deps: ManagerDeps, input: ExtensionInput): Promise<ExtensionAnswer> {
  // The worker within the tenant of the job its token names: another tenant's worker of the same id
  // is another worker, with its own budget and jobs.
  const claim = await deps.tokens.verify(input.token, input.workerId);
  const { jobId: tokenJobId, scopedWorkerId: workerId } = claim;
  // A token of an earlier job with the same id (its incarnation) changes nothing, here as on every call.
  const [tokenJob, tokenWorkflow] = await Promise.all([deps.jobs.getJob(tokenJobId), deps.jobs.getWorkflow(tokenJobId, claim.workflowId)]);
  if (!tokenJob) throw new JobNotFoundError(tokenJobId);
  assertIssuedFor(claim, tokenJob);
  // A workflow that reported its outcome is over for its worker (a review finding: its token spent budget and extended nothing).
  const workflowFinished =
    !tokenWorkflow || !belongsTo(tokenWorkflow, tokenJob) || tokenJob.workflowMarks[tokenWorkflow.index] !== WorkflowMark.active
      ? { workflowId: claim.workflowId }
      : undefined;
  /** The grants this request applied, while a retry may find their budget replaced. */
  let applied: { epoch: number; jobs: Array<{ jobId: string; workerIndex: number }> } | undefined;
  for (let attempt = 1; ; attempt++) {
    const now = deps.clock.now();
    const stored = await currentWorkerHealth(deps, workerId);
    const worker: WorkerHealth = stored ?? newWorker(workerId, now);
    if (applied && worker.budget.epoch > applied.epoch) {
      // A failure or reset replaced the budget this request's grant came from, possibly after its
      // walk passed these jobs: retire the grant here, where this request put it.
      await retireGrantsOnJobs(deps, applied.jobs, worker.budget.epoch);
      applied = undefined;
    }
    // Granted already (its answer lost, or its twin's write came first): the same grant, not a second one.
    const repeated = grantOfRequest(worker.budget, input.requestId);
    if (repeated) {
      deps.telemetry.info('extension request repeated: answered with its grant', { workerId: input.workerId, region: deps.region, extensionSeconds: repeated.seconds });
      return grantAnswer(deps, worker, repeated.seconds);
    }
    const suspect = workerStatus(worker, now, deps.policy) !== 'healthy';
    // Past its deadline as it really stands: a failed worker's grant, not yet dropped by the job's wake-up, does not count.
    const tokenJobDeadline = now < ownTimeoutAt(tokenJob.tracking) ? Infinity : liveEffectiveDeadline(tokenJob, await retiredGrantsOf(deps, tokenJob, new Map([[workerId, worker]])));
    const ask = {
      currentProgress: input.currentProgress,
      jobId: tokenJobId,
      ...(tokenJob.incarnation !== undefined ? { incarnation: tokenJob.incarnation } : {}),
      jobEnded: isTerminal(tokenJob.status),
      ...(workflowFinished ? { workflowFinished } : {}),
      jobBeingTimedOut: now >= tokenJobDeadline || tokenJob.tracking.locallyTimedOut,
      ...(input.requestId !== undefined ? { requestId: input.requestId } : {}),
    };
    const outcome = decideExtension(worker.budget, ask, suspect, deps.policy.extensions);
    const deny = async (denialReason: string): Promise<ExtensionAnswer> => {
      await runEffects(deps, [metric('ExtensionDenied')]);
      deps.telemetry.info('extension denied', { workerId: input.workerId, region: deps.region, denialReason });
      return {
        granted: false,
        extensionSeconds: 0,
        newDeadline: toIso(healthDeadline(worker, deps.policy)),
        remainingExtensions: remainingExtensions(worker.budget, deps.policy.extensions),
        denialReason,
      };
    };
    if (!outcome.granted) return deny(outcome.denialReason);
    // The jobs first, idempotently by grant: if the budget write below never happens (a crash, a
    // lost race), the retried request computes the same grant and extends no job twice.
    const { epoch, count, totalSeconds: seconds } = outcome.budget;
    applied = {
      epoch,
      jobs: await applyGrantToJobs(deps, {
        workerId,
        epoch,
        count,
        seconds,
        addedSeconds: outcome.seconds,
        grantedAt: now,
        progressAdvanced: outcome.progressAdvanced,
        progressJobId: tokenJobId,
        ...(tokenWorkflow && !workflowFinished ? { tokenWorkflow: { jobId: tokenJobId, workflowId: tokenWorkflow.workflowId, index: tokenWorkflow.index } } : {}),
        ...(input.estimatedCompletion !== undefined ? { estimatedCompletion: input.estimatedCompletion } : {}),
        ...(input.activeWorkflowCount !== undefined ? { activeWorkflowCount: input.activeWorkflowCount } : {}),
      }),
    };
    // Every job it was active in ended, or passed its deadline, meanwhile: nothing was extended, so nothing is spent.
    if (applied.jobs.length === 0) {
      return deny(`Worker '${input.workerId}' has no workflow of a running job left to extend: each ended or passed its deadline while the request was decided.`);
    }
    let granted: WorkerHealth;
    try {
      granted = await deps.jobs.saveWorker({ ...worker, budget: outcome.budget }, stored ? worker.version : 0);
    } catch (error) {
      if (error instanceof VersionConflictError && attempt < MAX_ATTEMPTS) continue;
      throw error;
    }
    await runEffects(deps, [metric('ExtensionGranted')]);
    deps.telemetry.info('extension granted', { workerId: input.workerId, region: deps.region, extensionSeconds: outcome.seconds, jobsExtended: applied.jobs.length });
    return grantAnswer(deps, granted, outcome.seconds);
  }
}

const grantAnswer = (deps: ManagerDeps, worker: WorkerHealth, extensionSeconds: number): ExtensionAnswer => ({
  granted: true,
  extensionSeconds,
  newDeadline: toIso(healthDeadline(worker, deps.policy)),
  remainingExtensions: remainingExtensions(worker.budget, deps.policy.extensions),
});
