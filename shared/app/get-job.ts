import { JobNotFoundError } from '../domain/errors.js';
import { jobView } from './job-views.js';
import type { ManagerDeps } from './manager-deps.js';

export async function getJob(deps: ManagerDeps, jobId: string) {
  const stored = await deps.jobs.getJobWithWorkflows(jobId);
  if (!stored) throw new JobNotFoundError(jobId);
  return jobView(stored.job, stored.workflows, deps.clock.now(), stored.grants);
}
