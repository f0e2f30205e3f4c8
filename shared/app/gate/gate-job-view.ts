import { gateJobStatus, gateTimeoutReason } from '../../domain/gate/gate-job-status.js';
import type { GateJob } from '../../domain/gate/gate-job.js';
import { toIso } from '../../domain/time.js';

/** The gate job answer (gate `GET /jobs/{jobId}`, docs/api.md): the global decision and the per-region view. */
export function gateJobView(job: GateJob) {
  const timeoutReason = gateTimeoutReason(job);
  return {
    jobId: job.jobId,
    status: gateJobStatus(job),
    globallyTimedOut: job.globallyTimedOut,
    ...(timeoutReason !== undefined ? { timeoutReason } : {}),
    ...(job.cancelRequested ? { cancelReason: job.cancelRequested.reason ?? null } : {}),
    // A cancel made by a call to one region, spread by the gate to the others.
    ...(job.cancelRequested?.region !== undefined ? { cancelledIn: job.cancelRequested.region } : {}),
    // A timeout the gate declared while a region's final status was lost, shown moot once every region answered.
    ...(job.withdrawnTimeout ? { withdrawnTimeoutReason: job.withdrawnTimeout.reason ?? null } : {}),
    submittedAt: toIso(job.submittedAt),
    timeoutSeconds: job.timeoutSeconds,
    datacenters: Object.fromEntries(job.targetRegions.map((region) => [region, regionView(job, region)])),
  };
}

function regionView(job: GateJob, region: string) {
  const reportAt = job.dcLastReportAt[region];
  const workflows = job.dcWorkflows?.[region];
  const hasRecentProgress = job.dcHasRecentProgress?.[region];
  return {
    status: job.dcStatus[region],
    lastProgressAt: toIso(job.dcLastProgress[region] ?? job.submittedAt),
    fenceToken: job.dcFenceToken[region] ?? 0,
    totalExtensionsGranted: job.dcTotalExtensions[region] ?? 0,
    ...(job.dcTimeoutReported[region] !== undefined ? { timeoutReported: job.dcTimeoutReported[region] } : {}),
    // What the region's newest progress report said, when; absent until its first (a final status carries none of it).
    ...(reportAt !== undefined
      ? {
          lastReport: {
            at: toIso(reportAt),
            ...(workflows !== undefined ? { workflows } : {}),
            ...(hasRecentProgress !== undefined ? { hasRecentProgress } : {}),
          },
        }
      : {}),
  };
}
