import { cancelJob as decideCancel } from '../domain/cancel-job.js';
import { DEFAULT_TENANT } from '../domain/tenant.js';
import { decideJob } from './job-state-store.js';
import { decisionContext, type ManagerDeps } from './manager-deps.js';
import { onOwnJob } from './own-job.js';

/** `POST /jobs/{jobId}/cancel` by the job's tenant (internal callers act as the default tenant). */
export async function cancelJob(deps: ManagerDeps, jobId: string, reason: string | undefined, tenant: string = DEFAULT_TENANT) {
  const { state: job } = await decideJob(deps, jobId, onOwnJob(tenant, jobId, (current) => decideCancel(current, reason, decisionContext(deps))));
  deps.telemetry.info('job cancelled', { jobId, region: deps.region, fenceToken: job.tracking.fenceToken, reason });
  return { jobId, status: job.status };
}
