import type { Job } from '../domain/job.js';
import { withExtensionReport } from '../domain/gate-reports.js';
import { retireWorkerGrants } from '../domain/worker-extensions.js';
import { decideJob } from './job-state-store.js';
import { decisionContext, type ManagerDeps } from './manager-deps.js';

/**
 * AD-26 `reset` / seed 001 §10.4.9: the worker has a budget from `epochBefore` on (a failure
 * gives one too), so its older grants stop counting on every job where it holds one, active there or
 * not (a finished job's record just leaves the index). A job whose deadline moves earlier re-arms its timer and, gate-coordinated, tells the gate.
 * Returns how many jobs changed. `alsoIn` is walked whatever the `byWorker` index lists (on AWS it
 * lags the table). A walk cut short by a crash is walked again by the call's repeat.
 */
export async function retireWorkerGrantsEverywhere(deps: ManagerDeps, workerId: string, epochBefore: number, alsoIn?: Job): Promise<number> {
  const listed = (await deps.jobs.findWorkOfWorker(workerId)).grants;
  const known = alsoIn && alsoIn.status === 'RUNNING' && !listed.some((grant) => grant.jobId === alsoIn.jobId) ? await grantsIn(deps, alsoIn, workerId) : [];
  let changed = 0;
  for (const { jobId, workerIndex } of [...listed, ...known]) {
    const job = await deps.jobs.getJob(jobId);
    if (job && (await holdsGrantAt(deps, job, workerId, workerIndex)) && (await retireGrantOnJob(deps, job, workerIndex, epochBefore))) changed++;
    await deps.jobs.retireGrantRecord(jobId, workerId, job && job.status === 'RUNNING' ? epochBefore : Number.MAX_SAFE_INTEGER);
  }
  return changed;
}

/** The worker's grant records in one job, read from the job's own items. */
async function grantsIn(deps: ManagerDeps, job: Job, workerId: string): Promise<Array<{ jobId: string; workerIndex: number }>> {
  const records = await deps.jobs.findGrantRecords(job.jobId, job.incarnation);
  return records.filter((record) => record.workerId === workerId).map((record) => ({ jobId: job.jobId, workerIndex: record.workerIndex }));
}

/**
 * The index lists grant records without their job's incarnation: a record left by an earlier job
 * with this id names an index that, in the job now stored, may be another worker's. Only a record
 * of this job's own incarnation says the index is this worker's.
 */
async function holdsGrantAt(deps: ManagerDeps, job: Job, workerId: string, workerIndex: number): Promise<boolean> {
  if (job.status !== 'RUNNING') return false;
  const records = await deps.jobs.findGrantRecords(job.jobId, job.incarnation);
  return records.some((record) => record.workerId === workerId && record.workerIndex === workerIndex);
}

/** Retires the worker's grant on one job if it is older than `epochBefore`; says whether the job changed. */
export async function retireGrantOnJob(deps: ManagerDeps, job: Job, workerIndex: number, epochBefore: number): Promise<boolean> {
  if (job.status !== 'RUNNING') return false;
  const { decision } = await decideJob(deps, job.jobId, (current) => {
    const ctx = decisionContext(deps);
    return withExtensionReport(retireWorkerGrants(current, workerIndex, epochBefore, ctx), ctx);
  }, job);
  return decision.ignored === undefined;
}

/** Retires a worker's grants on these jobs, where a request put them (see `request-extension`). */
export async function retireGrantsOnJobs(
  deps: ManagerDeps,
  jobs: ReadonlyArray<{ jobId: string; workerIndex: number }>,
  epochBefore: number,
): Promise<void> {
  for (const { jobId, workerIndex } of jobs) {
    const job = await deps.jobs.getJob(jobId);
    if (job) await retireGrantOnJob(deps, job, workerIndex, epochBefore);
  }
}
