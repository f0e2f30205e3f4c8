import { secondsToMs, type EpochMs } from '../time.js';
import { regionsNotFinal, type GateJob } from './gate-job.js';
import type { GatePolicy } from './gate-policy.js';

/** AD-34 Part 8 across regions: a region's extensions must not be cut short by the global deadline. */
export const largestExtensionSeconds = (job: GateJob): number =>
  job.targetRegions.reduce((max, region) => Math.max(max, job.dcTotalExtensions[region] ?? 0), 0);

/** Seed 000 Part 5, condition 1: `submittedAt + timeoutSeconds + max over regions of their extension total`. */
export const globalDeadline = (job: GateJob): EpochMs =>
  job.submittedAt + secondsToMs(job.timeoutSeconds + largestExtensionSeconds(job));

/** When the gate decides condition 1: the global deadline plus the grace for extension reports in flight (gate-policy.ts). */
export const globalTimeoutDueAt = (job: GateJob, policy: Pick<GatePolicy, 'extensionReportGraceSeconds'>): EpochMs =>
  globalDeadline(job) + secondsToMs(policy.extensionReportGraceSeconds);

/**
 * A region grants nothing past its deadline, so its extension total is known once the gate holds a
 * report the region sent at or after its deadline as that report put it. Before that, a grant may
 * be on its way, or lost with the reports that carried it while the gate could not hear.
 */
export const extensionsMayBeUnheard = (job: GateJob): boolean =>
  regionsNotFinal(job).some((region) => {
    const reportAt = job.dcLastReportAt[region];
    return reportAt === undefined || reportAt < job.submittedAt + secondsToMs(job.timeoutSeconds + (job.dcTotalExtensions[region] ?? 0));
  });
