import { JobNotFoundError } from '../../domain/errors.js';
import type { GateDeps } from './gate-deps.js';
import { gateJobView } from './gate-job-view.js';

export async function getGateJob(deps: GateDeps, jobId: string) {
  const job = await deps.gates.get(jobId);
  if (!job) throw new JobNotFoundError(jobId);
  return gateJobView(job);
}
