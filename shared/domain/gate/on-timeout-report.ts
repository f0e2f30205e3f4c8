import type { Decision } from '../effects.js';
import type { EpochMs } from '../time.js';
import type { JobTimeoutReport } from '../../events/job-timeout-report.js';
import { declareGlobalTimeout } from './declare-global-timeout.js';
import { isDecided, type GateJob } from './gate-job.js';
import type { GatePolicy } from './gate-policy.js';
import { heardFromRegion, ignoredRegionMessage } from './region-message-guard.js';
import { replyWithDecision } from './reply-with-decision.js';

export type TimeoutReportInput = Pick<JobTimeoutReport, 'region' | 'fenceToken' | 'reason'>;

/**
 * Seed 001 §10.5.2 `record_timeout`; seed 000 Part 5, condition 2: one region timing out locally
 * times the job out everywhere, at once. The region stays `running` in the gate's view: its manager
 * waits for the decision, and only its final status ends it. Its manager re-sends the report until
 * it hears the decision, so a repeat after the decision is answered with the decision.
 */
export function onTimeoutReport(job: GateJob, report: TimeoutReportInput, now: EpochMs, policy: GatePolicy): Decision<GateJob> {
  const { region } = report;
  const ignored = ignoredRegionMessage(job, region, report.fenceToken, 'timeout_report');
  if (ignored) return ignored;
  let next = heardFromRegion(job, region, report.fenceToken);
  if (next.dcTimeoutReported[region] === undefined) {
    next = { ...next, dcTimeoutReported: { ...next.dcTimeoutReported, [region]: report.reason } };
  }
  if (isDecided(next)) return replyWithDecision(job, next, region);
  return declareGlobalTimeout(next, { kind: 'dc_timeout', region, localReason: report.reason }, now, policy);
}
