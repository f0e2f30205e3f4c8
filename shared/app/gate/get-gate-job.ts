import { DEFAULT_TENANT } from '../../domain/tenant.js';
import { ownJob } from '../own-job.js';
import type { GateDeps } from './gate-deps.js';
import { gateJobView } from './gate-job-view.js';

export async function getGateJob(deps: GateDeps, jobId: string, tenant: string = DEFAULT_TENANT) {
  return gateJobView(ownJob(await deps.gates.get(jobId), tenant, jobId));
}
