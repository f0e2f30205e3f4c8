import { cancelJob as decideCancel } from '../domain/cancel-job.js';
import { decideJob } from './job-state-store.js';
import { decisionContext, type ManagerDeps } from './manager-deps.js';

export async function cancelJob(deps: ManagerDeps, jobId: string, reason: string | undefined) {
  const { state: job } = await decideJob(deps, jobId, (current) => decideCancel(current, reason, decisionContext(deps)));
  deps.telemetry.info('job cancelled', { jobId, region: deps.region, fenceToken: job.tracking.fenceToken, reason });
  return { jobId, status: job.status };
}
