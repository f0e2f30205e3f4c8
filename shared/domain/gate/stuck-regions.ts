import { progressCoalesceMs } from '../deadlines.js';
import { secondsToMs } from '../time.js';
import { regionsNotFinal, type GateJob } from './gate-job.js';
import type { GatePolicy } from './gate-policy.js';

/**
 * A manager's stored last progress may lag the truth by its coalescing window (deadlines.ts), at most
 * this much whatever the job's threshold. Like the manager, the gate allows for it: never stuck early.
 */
const REPORTED_PROGRESS_LAG_MS = progressCoalesceMs(Number.POSITIVE_INFINITY);

/**
 * A region is known to be stuck when its newest progress report, sent at least the gate stuck
 * threshold after its last progress, still showed none: its manager is alive and says so, also by
 * its `hasRecentProgress` flag. A region whose manager says it progressed recently is never stuck
 * (with a report interval above the gate threshold that can defer the rule by one interval: late,
 * never early).
 *
 * Why evidence and not the gate's clock: the gate's view goes stale whenever the gate cannot hear
 * (seed 000 Scenario 2). Measured on the gate's clock, a gate back from an outage longer than the
 * threshold would find every healthy job "stuck" and time them all out. A region the gate does not
 * hear from is covered by its own manager (local timeout, then the gate fallback) and by the global
 * deadline.
 */
export function regionKnownStuck(job: GateJob, region: string, policy: GatePolicy): boolean {
  const reportAt = job.dcLastReportAt[region];
  const progressAt = job.dcLastProgress[region];
  if (reportAt === undefined || progressAt === undefined) return false;
  if (job.dcHasRecentProgress?.[region] === true) return false;
  return reportAt - progressAt >= secondsToMs(policy.gateStuckThresholdSeconds) + REPORTED_PROGRESS_LAG_MS;
}

/** Seed 000 Part 5, condition 3: every region still running is known to be stuck. */
export function everyRunningRegionStuck(job: GateJob, policy: GatePolicy): boolean {
  const running = regionsNotFinal(job);
  return running.length > 0 && running.every((region) => regionKnownStuck(job, region, policy));
}
