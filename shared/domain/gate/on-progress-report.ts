import { unchanged, type Decision } from '../effects.js';
import type { EpochMs } from '../time.js';
import type { JobProgressReport } from '../../events/job-progress-report.js';
import { isDecided, type GateJob } from './gate-job.js';
import type { GatePolicy } from './gate-policy.js';
import { heardFromRegion, ignoredRegionMessage } from './region-message-guard.js';
import { replyWithDecision } from './reply-with-decision.js';
import { settleAfterReport } from './settle-after-report.js';

export type ProgressReportInput = Pick<
  JobProgressReport,
  | 'region'
  | 'fenceToken'
  | 'timestamp'
  | 'lastProgressAt'
  | 'totalExtensionsGranted'
  | 'maxWorkerExtension'
  | 'workersWithExtensions'
  | 'workflowsTotal'
  | 'workflowsCompleted'
  | 'workflowsFailed'
  | 'hasRecentProgress'
>;

/**
 * Seed 001 §10.5.2 `record_progress`. Monotonic, so duplicates and any order agree: last progress
 * only moves forward, and the other figures come from the newest report (by its timestamp: extension
 * totals go down when a failed worker's extensions are dropped, seed 001 §10.7.9, and the recent
 * progress flag turns false).
 */
function recordProgress(job: GateJob, report: ProgressReportInput): GateJob {
  const { region } = report;
  const progressAt = Date.parse(report.lastProgressAt);
  const reportAt = Date.parse(report.timestamp);
  const progressed = progressAt > (job.dcLastProgress[region] ?? -Infinity);
  const newest = reportAt > (job.dcLastReportAt[region] ?? -Infinity);
  if (!progressed && !newest) return job;
  return {
    ...job,
    ...(progressed ? { dcLastProgress: { ...job.dcLastProgress, [region]: progressAt } } : {}),
    ...(newest
      ? {
          dcLastReportAt: { ...job.dcLastReportAt, [region]: reportAt },
          dcTotalExtensions: { ...job.dcTotalExtensions, [region]: report.totalExtensionsGranted },
          dcMaxExtension: { ...job.dcMaxExtension, [region]: report.maxWorkerExtension },
          dcWorkersWithExtensions: { ...job.dcWorkersWithExtensions, [region]: report.workersWithExtensions },
          dcWorkflows: {
            ...job.dcWorkflows,
            [region]: { total: report.workflowsTotal, completed: report.workflowsCompleted, failed: report.workflowsFailed },
          },
          dcHasRecentProgress: { ...job.dcHasRecentProgress, [region]: report.hasRecentProgress },
        }
      : {}),
  };
}

/**
 * A region's periodic report. It never touches the gate's timer: a later deadline (more extensions)
 * is found when the timer fires and re-arms, like the manager's. It may complete condition 3.
 */
export function onProgressReport(job: GateJob, report: ProgressReportInput, now: EpochMs, policy: GatePolicy): Decision<GateJob> {
  const ignored = ignoredRegionMessage(job, report.region, report.fenceToken, 'progress_report');
  if (ignored) return ignored;
  const next = recordProgress(heardFromRegion(job, report.region, report.fenceToken), report);
  if (isDecided(next)) return replyWithDecision(job, next, report.region);
  if (next === job) return unchanged(job, 'duplicate');
  return settleAfterReport(next, now, policy);
}
