import { cancelGateJob as decideCancel } from '../../domain/gate/cancel-gate-job.js';
import { gateJobStatus } from '../../domain/gate/gate-job-status.js';
import { DEFAULT_TENANT } from '../../domain/tenant.js';
import { onOwnJob } from '../own-job.js';
import { decideGateJob } from './decide-gate-job.js';
import type { GateDeps } from './gate-deps.js';

/**
 * Cancels the job in every region; the gate re-sends until each region reports its final status. Only
 * the job's tenant may; the cancel the gate then sends the regions is its own, internal.
 */
export async function cancelGateJob(deps: GateDeps, jobId: string, reason: string | undefined, tenant: string = DEFAULT_TENANT) {
  const { state } = await decideGateJob(deps, jobId, onOwnJob(tenant, jobId, (job) => decideCancel(job, reason, deps.clock.now(), deps.policy)));
  deps.telemetry.info('gate job cancelled', { jobId, region: deps.gateRegion, fenceToken: state.timeoutFenceToken, reason });
  return { jobId, status: gateJobStatus(state) };
}
