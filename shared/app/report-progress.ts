import { effectiveDeadline, ownTimeoutAt, stuckDeadline } from '../domain/deadlines.js';
import { JobNotFoundError, WorkflowNotFoundError } from '../domain/errors.js';
import { belongsTo, isTerminal, type Job, type Workflow } from '../domain/job.js';
import { lastHeardAt, progressWrites, storedStuckClock, type ProgressReport } from '../domain/record-progress.js';
import { toIso, type EpochMs } from '../domain/time.js';
import { heardAt, newWorker, onHealthcheck, workerStatus, type WorkerHealth } from '../domain/worker-health.js';
import { VersionConflictError } from '../ports/job-store.js';
import { currentWorkerHealth } from './current-worker-health.js';
import { jobAfterReportWrite } from './job-after-report-write.js';
import { recordProgressSample } from './history/record-progress-sample.js';
import type { ManagerDeps } from './manager-deps.js';
import { retireWorkerGrantsEverywhere } from './retire-worker-grants.js';
import { assertIssuedFor } from './workflow-tokens.js';

export interface ProgressInput {
  jobId: string;
  workflowId: string;
  workerId: string;
  progress?: number;
  /** Opaque; a counter is compared as its decimal string. */
  step?: string | number;
  token: string;
}

/**
 * The hot path: one batched read, then at most one write, to the workflow's own item (a rare
 * history sample aside), once per coalescing window for a workflow reported on faster than that.
 * Every call on a running job is the worker's healthcheck (AD-26); only a call that advances its
 * workflow resets the job's stuck clock (seed 000, problem 4), which the job's timer reads from the
 * workflows. Once the job has ended the call writes nothing and the answer tells the worker to stop.
 *
 * The job may end between this call's read and its write. An end nobody's clock brings (a cancel, a
 * gate's decision, a workflow's outcome) reads nothing this call writes, so the call is answered as
 * it was before that end, and the worker hears of the end at its next call. A wake-up's end does
 * read it: a stuck timeout decided without this advance, a deadline whose grants lapsed for want of
 * this healthcheck. So near the first moment a wake-up could end the job (`END_RACE_MARGIN_MS`), a
 * call that writes reads the job again after its write (`jobAfterReportWrite`), takes its write back
 * if the job ended, and answers with the end. Everywhere else that read would cost a consistent read
 * and a round trip on every writing call (a third of the hot path's rate when each call writes).
 */
export async function reportProgress(deps: ManagerDeps, input: ProgressInput) {
  const claim = await deps.tokens.verify(input.token, input.workerId, { jobId: input.jobId, workflowId: input.workflowId });
  const now = deps.clock.now();
  const { job: read, workflow, worker } = await deps.jobs.getProgressContext(input.jobId, input.workflowId, claim.scopedWorkerId);
  if (!read) throw new JobNotFoundError(input.jobId);
  assertIssuedFor(claim, read);
  if (!workflow || !belongsTo(workflow, read)) throw new WorkflowNotFoundError(input.jobId, input.workflowId);

  const writes = progressWrites(read, workflow, reportOf(input), now);
  const workflowWritten = writes.advance !== undefined || writes.heartbeat;
  const writeWorkflow = () =>
    writes.advance
      ? deps.jobs.recordWorkflowAdvance(read.jobId, workflow.workflowId, now, writes.advance)
      : writes.heartbeat
        ? deps.jobs.touchWorkflowHeartbeat(read.jobId, workflow.workflowId, now)
        : undefined;
  const signsOfLife = (job: Job) =>
    Promise.all([
      // A workflow heard before carries this call in its own write: the worker item stays as it is.
      // Its first call also touches the worker, so a workflow the index does not list yet (on AWS
      // it lags the table) never holds the worker's only recent call.
      recordHealthcheck(deps, claim.scopedWorkerId, worker, workflow, workflowWritten && lastHeardAt(workflow) !== undefined, now),
      writes.sample ? recordProgressSample(deps, job, workflow, { advanced: writes.advance !== undefined, progress: input.progress }, now) : undefined,
    ]);
  let job = read;
  if (workflowWritten && aWakeUpMayEndItSoon(read, workflow, now)) {
    const replaced = await writeWorkflow();
    job = await jobAfterReportWrite(deps, claim, workflow, { at: now, ...(writes.advance ? { advance: writes.advance } : {}), ...(replaced ? { replaced } : {}) });
    if (!isTerminal(job.status)) await signsOfLife(job);
  } else {
    // A finished job's token is no sign of life: a replay of it must not clear a reported failure (as a finished workflow's writes nothing).
    await Promise.all([writeWorkflow(), isTerminal(read.status) ? undefined : signsOfLife(read)]);
  }
  const ended = isTerminal(job.status);
  // Only what is durable: this workflow's stored advance (or this one's, written above) and the job's
  // stored clock; other workflows' advances only make the real stuck deadline later.
  const lastProgressAt = Math.max(storedStuckClock(job, workflow), writes.advance && !ended ? now : -Infinity);
  const tracking = { ...job.tracking, lastProgressAt };
  return {
    status: job.status,
    cancel: ended,
    deadlineAt: toIso(effectiveDeadline(tracking)),
    progressed: !ended && (writes.advance !== undefined || writes.coalescedAdvance),
    // When the job is timed out as stuck unless some workflow of it advances before then.
    ...(ended ? {} : { stuckAt: toIso(stuckDeadline(tracking)) }),
  };
}

/**
 * How close to the first moment a wake-up could end the job a writing call reads the job again: more
 * than a call's read-to-write time on a loaded Lambda, and the clocks' skew between two of them.
 */
export const END_RACE_MARGIN_MS = 5_000;

/**
 * Whether a wake-up could end the job within the margin: at its stuck deadline by the clock this call
 * read (the job's real clock, over all its workflows, is no earlier), or at its own timeout (grants
 * stop counting when their worker falls silent, so the extended deadline is no bound).
 */
function aWakeUpMayEndItSoon(job: Job, workflow: Workflow, now: EpochMs): boolean {
  const stuckAt = stuckDeadline({ ...job.tracking, lastProgressAt: storedStuckClock(job, workflow) });
  return now >= Math.min(stuckAt, ownTimeoutAt(job.tracking)) - END_RACE_MARGIN_MS;
}

const reportOf = ({ progress, step }: ProgressInput): ProgressReport => ({
  ...(progress !== undefined ? { progress } : {}),
  ...(step !== undefined ? { step: String(step) } : {}),
});

async function recordHealthcheck(deps: ManagerDeps, workerId: string, stored: WorkerHealth | undefined, workflow: Workflow, carriedByWorkflow: boolean, now: number) {
  try {
    if (!stored) {
      await deps.jobs.saveWorker(newWorker(workerId, now), 0);
      return;
    }
    const before = lastHeardAt(workflow);
    let worker = heardAt(stored, before);
    // Silent this long by the item and this workflow: its other workflows may know better (rarely read).
    // Not this workflow: this report's own write, beside this call, may have landed already, and a
    // failed worker would look healthy by the very call that ends its silence, and never recover.
    if (worker.failedAt === undefined && workerStatus(worker, now, deps.policy) === 'failed') {
      const current = await currentWorkerHealth(deps, workerId, workflow);
      if (current) worker = heardAt(current, before);
    }
    const write = onHealthcheck(worker, now, deps.policy, carriedByWorkflow);
    if (write.kind === 'touch') await deps.jobs.touchWorkerHealth(workerId, now);
    if (write.kind === 'recover') {
      const { failedAt: _recovered, ...rest } = worker;
      await deps.jobs.saveWorker({ ...rest, budget: write.budget }, worker.version);
      await deps.jobs.touchWorkerHealth(workerId, now);
      if (write.budget.epoch !== worker.budget.epoch) await retireWorkerGrantsEverywhere(deps, workerId, write.budget.epoch);
      deps.telemetry.info('worker recovered: fresh extension budget', { workerId, region: deps.region });
    }
  } catch (error) {
    // A concurrent healthcheck of the same worker got there first; it recorded the same fact.
    if (!(error instanceof VersionConflictError)) throw error;
  }
}
