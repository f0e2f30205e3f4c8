import { JobNotFoundError } from '../../domain/errors.js';
import { gateJobStatus } from '../../domain/gate/gate-job-status.js';
import { toIso } from '../../domain/time.js';
import type { GateDeps } from './gate-deps.js';

/** The gate job answer (docs/api.md): the global decision and the per-region view. */
export async function getGateJob(deps: GateDeps, jobId: string) {
  const job = await deps.gates.get(jobId);
  if (!job) throw new JobNotFoundError(jobId);
  return {
    jobId: job.jobId,
    status: gateJobStatus(job),
    globallyTimedOut: job.globallyTimedOut,
    ...(job.timeoutReason !== undefined ? { timeoutReason: job.timeoutReason } : {}),
    ...(job.cancelRequested ? { cancelReason: job.cancelRequested.reason ?? null } : {}),
    // A timeout the gate declared while a region's final status was lost, shown moot once every region answered.
    ...(job.withdrawnTimeout ? { withdrawnTimeoutReason: job.withdrawnTimeout.reason ?? null } : {}),
    submittedAt: toIso(job.submittedAt),
    timeoutSeconds: job.timeoutSeconds,
    datacenters: Object.fromEntries(
      job.targetRegions.map((region) => [
        region,
        {
          status: job.dcStatus[region],
          lastProgressAt: toIso(job.dcLastProgress[region] ?? job.submittedAt),
          fenceToken: job.dcFenceToken[region] ?? 0,
          totalExtensionsGranted: job.dcTotalExtensions[region] ?? 0,
          ...(job.dcTimeoutReported[region] !== undefined ? { timeoutReported: job.dcTimeoutReported[region] } : {}),
        },
      ]),
    ),
  };
}
