import { secondsToMs, type EpochMs } from '../time.js';
import { regionsNotFinal, type GateJob } from './gate-job.js';
import type { GatePolicy } from './gate-policy.js';

/** The job's own deadline as the gate set it at submission, before any region's grant or late start. */
export const submittedDeadline = (job: GateJob): EpochMs => job.submittedAt + secondsToMs(job.timeoutSeconds);

/**
 * When the gate counts `region`'s deadline from: the moment that region accepted the job, as its
 * acceptance said (`dcStartedAt`), because the region measures the deadline it tells its workers
 * from then. A region the fan-out is resent to after it did not answer starts late, with no clock skew.
 *
 * Bounded both ways, so no region's word moves the gate's decision outside what the seed's formula
 * allows by more than one timeout:
 * - never before `submittedAt` (a region whose clock runs behind the gate's): condition 1 never
 *   comes earlier than `submittedAt + timeoutSeconds + extensions`, as before;
 * - a region that says it accepted after the job's own deadline (`submittedAt + timeoutSeconds`),
 *   a very late resend or a region that lies, does not postpone it: it counts from `submittedAt`
 *   like a region never heard. So a late start adds at most `timeoutSeconds` to the global deadline.
 */
export function regionStartedAt(job: GateJob, region: string): EpochMs {
  const accepted = job.dcStartedAt?.[region];
  if (accepted === undefined || !(accepted <= submittedDeadline(job))) return job.submittedAt;
  return Math.max(accepted, job.submittedAt);
}

/** A region's deadline as the gate counts it: from that region's start, with that region's extension total (AD-34 Part 8). */
export const regionDeadline = (job: GateJob, region: string): EpochMs =>
  regionStartedAt(job, region) + secondsToMs(job.timeoutSeconds + (job.dcTotalExtensions[region] ?? 0));

/**
 * Seed 000 Part 5, condition 1, counted per region: the latest of the regions' deadlines. With every
 * region started at `submittedAt` this is the seed's `submittedAt + timeoutSeconds + max over regions
 * of their extension total`; a region that started later is not cut short by it (a region's extensions
 * must not be, AD-34 Part 8, nor its start). Never earlier than the seed's formula, since no region
 * counts from before `submittedAt`.
 */
export const globalDeadline = (job: GateJob): EpochMs =>
  job.targetRegions.reduce((latest, region) => Math.max(latest, regionDeadline(job, region)), submittedDeadline(job));

/** When the gate decides condition 1: the global deadline plus the grace for extension reports in flight (gate-policy.ts). */
export const globalTimeoutDueAt = (job: GateJob, policy: Pick<GatePolicy, 'extensionReportGraceSeconds'>): EpochMs =>
  globalDeadline(job) + secondsToMs(policy.extensionReportGraceSeconds);

/**
 * A region grants nothing past its deadline, so its extension total is known once the gate holds a
 * report the region sent at or after its deadline as that report put it. Before that, a grant may
 * be on its way, or lost with the reports that carried it while the gate could not hear. The report's
 * time is the region's clock, and so is its start (`regionStartedAt`): a late start or a region clock
 * ahead of the gate's does not make a report sent before the deadline read as sent after it.
 */
export const extensionsMayBeUnheard = (job: GateJob): boolean =>
  regionsNotFinal(job).some((region) => {
    const reportAt = job.dcLastReportAt[region];
    return reportAt === undefined || reportAt < regionDeadline(job, region);
  });
