import { JobNotFoundError } from '../domain/errors.js';
import type { Decision } from '../domain/effects.js';
import { isTerminal, type Job } from '../domain/job.js';
import type { JobStore } from '../ports/job-store.js';
import { decideAndSave, type VersionedStore } from './decide-and-save.js';
import { jobHistoryRecorder, type HistoryRecorder } from './history/record-history.js';
import type { ManagerDeps } from './manager-deps.js';

export const jobStateStore = (
  jobs: JobStore,
  recordHistory?: HistoryRecorder<Job>,
  load: (jobId: string) => Promise<Job | undefined> = (jobId) => jobs.getJob(jobId),
): VersionedStore<Job> => ({
  load,
  save: (job, expectedVersion) => jobs.saveJob(job, expectedVersion),
  isFinished: (job) => isTerminal(job.status),
  ...(recordHistory ? { recordHistory } : {}),
});

/** `decideAndSave` for one region manager's job; `load` reloads it after a conflict (the job item by default). */
export const decideJob = (
  deps: ManagerDeps,
  jobId: string,
  decide: (job: Job) => Decision<Job>,
  alreadyLoaded?: Job,
  load?: (jobId: string) => Promise<Job | undefined>,
) =>
  decideAndSave(
    jobStateStore(deps.jobs, deps.history && jobHistoryRecorder(deps.history, deps.telemetry), load),
    deps,
    jobId,
    () => deps.clock.now(),
    decide,
    () => new JobNotFoundError(jobId),
    alreadyLoaded,
  );
