import { takeOverJob as decideTakeover } from '../domain/take-over-job.js';
import { DEFAULT_TENANT } from '../domain/tenant.js';
import { decideJob } from './job-state-store.js';
import { decisionContext, type ManagerDeps } from './manager-deps.js';
import { onOwnJob } from './own-job.js';

/** Leadership transfer: the job's fence token goes up by one; tracking resumes from the same `startedAt`. */
export async function takeOverJob(deps: ManagerDeps, jobId: string, tenant: string = DEFAULT_TENANT) {
  const { state: job } = await decideJob(deps, jobId, onOwnJob(tenant, jobId, (current) => decideTakeover(current, decisionContext(deps))));
  deps.telemetry.info('job taken over', { jobId, region: deps.region, fenceToken: job.tracking.fenceToken });
  return { jobId, fenceToken: job.tracking.fenceToken };
}
