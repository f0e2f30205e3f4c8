import { JobNotFoundError } from '../domain/errors.js';
import type { Decision } from '../domain/effects.js';
import { isTerminal, type Job } from '../domain/job.js';
import type { JobStore } from '../ports/job-store.js';
import { decideAndSave, type VersionedStore } from './decide-and-save.js';
import { jobViews, type StateViews } from './history/record-history.js';
import type { ManagerDeps } from './manager-deps.js';

export const jobStateStore = (
  jobs: JobStore,
  views?: StateViews<Job>,
  load: (jobId: string) => Promise<Job | undefined> = (jobId) => jobs.getJob(jobId),
): VersionedStore<Job> => ({
  load,
  save: (job, expectedVersion) => jobs.saveJob(job, expectedVersion),
  isFinished: (job) => isTerminal(job.status),
  finishedWakeUpAt: (job) => job.cancelToSpread?.nextSendAt,
  retryWakeUp: (job, dueAt) => ({ scope: 'job', jobId: job.jobId, fenceToken: job.tracking.fenceToken, dueAt }),
  ...(views ? { recordHistory: views.record, rewriteFinishedView: views.rewriteFinished } : {}),
});

/** The region manager's job store with its views (history and the jobs list) when it keeps them. */
export const managerJobStateStore = (deps: ManagerDeps, load?: (jobId: string) => Promise<Job | undefined>) =>
  jobStateStore(deps.jobs, deps.history && jobViews(deps.history, deps.telemetry), load);

/** `decideAndSave` for one region manager's job; `load` reloads it after a conflict (the job item by default). */
export const decideJob = (
  deps: ManagerDeps,
  jobId: string,
  decide: (job: Job) => Decision<Job>,
  alreadyLoaded?: Job,
  load?: (jobId: string) => Promise<Job | undefined>,
) => decideAndSave(managerJobStateStore(deps, load), deps, jobId, () => deps.clock.now(), decide, () => new JobNotFoundError(jobId), alreadyLoaded);
