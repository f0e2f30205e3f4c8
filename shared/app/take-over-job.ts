import { takeOverJob as decideTakeover } from '../domain/take-over-job.js';
import { decideJob } from './job-state-store.js';
import { decisionContext, type ManagerDeps } from './manager-deps.js';

/** Leadership transfer: the job's fence token goes up by one; tracking resumes from the same `startedAt`. */
export async function takeOverJob(deps: ManagerDeps, jobId: string) {
  const { state: job } = await decideJob(deps, jobId, (current) => decideTakeover(current, decisionContext(deps)));
  deps.telemetry.info('job taken over', { jobId, region: deps.region, fenceToken: job.tracking.fenceToken });
  return { jobId, fenceToken: job.tracking.fenceToken };
}
