import { JobNotFoundError } from '../domain/errors.js';
import { belongsTo } from '../domain/job.js';
import { jobView } from './job-views.js';
import type { ManagerDeps } from './manager-deps.js';

export async function getJob(deps: ManagerDeps, jobId: string) {
  const stored = await deps.jobs.getJobWithWorkflows(jobId);
  if (!stored) throw new JobNotFoundError(jobId);
  const workflows = stored.workflows.filter((w) => belongsTo(w, stored.job));
  return jobView(stored.job, workflows, deps.clock.now(), stored.grants);
}
