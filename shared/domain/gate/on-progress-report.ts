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
 * progress flag turns false). Two reports of the same instant (a periodic one and the one an extension
 * sends at once) merge to the larger figures, whichever arrives first: keeping only the first would
 * lose the extension and let the global deadline cut it short (found on the local cloud's virtual clock,
 * where both carry the same millisecond). A lower total of that instant waits for the next report.
 */
function recordProgress(job: GateJob, report: ProgressReportInput): GateJob {
  const { region } = report;
  const progressAt = Date.parse(report.lastProgressAt);
  const reportAt = Date.parse(report.timestamp);
  const lastReportAt = job.dcLastReportAt[region] ?? -Infinity;
  const progressed = progressAt > (job.dcLastProgress[region] ?? -Infinity);
  const tie = reportAt === lastReportAt;
  const merged = tie ? largerFigures(job, report) : undefined;
  const figures = reportAt > lastReportAt ? reportFigures(report) : merged && !sameFigures(job, region, merged) ? merged : undefined;
  if (!progressed && figures === undefined) return job;
  return {
    ...job,
    ...(progressed ? { dcLastProgress: { ...job.dcLastProgress, [region]: progressAt } } : {}),
    ...(figures
      ? {
          dcLastReportAt: { ...job.dcLastReportAt, [region]: reportAt },
          dcTotalExtensions: { ...job.dcTotalExtensions, [region]: figures.totalExtensions },
          dcMaxExtension: { ...job.dcMaxExtension, [region]: figures.maxExtension },
          dcWorkersWithExtensions: { ...job.dcWorkersWithExtensions, [region]: figures.workersWithExtensions },
          dcWorkflows: { ...job.dcWorkflows, [region]: figures.workflows },
          dcHasRecentProgress: { ...job.dcHasRecentProgress, [region]: figures.hasRecentProgress },
        }
      : {}),
  };
}

interface RegionFigures {
  totalExtensions: number;
  maxExtension: number;
  workersWithExtensions: number;
  workflows: { total: number; completed: number; failed: number };
  hasRecentProgress: boolean;
}

const reportFigures = (report: ProgressReportInput): RegionFigures => ({
  totalExtensions: report.totalExtensionsGranted,
  maxExtension: report.maxWorkerExtension,
  workersWithExtensions: report.workersWithExtensions,
  workflows: { total: report.workflowsTotal, completed: report.workflowsCompleted, failed: report.workflowsFailed },
  hasRecentProgress: report.hasRecentProgress,
});

function largerFigures(job: GateJob, report: ProgressReportInput): RegionFigures {
  const { region } = report;
  const fresh = reportFigures(report);
  const known = job.dcWorkflows?.[region];
  return {
    totalExtensions: Math.max(fresh.totalExtensions, job.dcTotalExtensions[region] ?? 0),
    maxExtension: Math.max(fresh.maxExtension, job.dcMaxExtension[region] ?? 0),
    workersWithExtensions: Math.max(fresh.workersWithExtensions, job.dcWorkersWithExtensions[region] ?? 0),
    workflows: {
      total: Math.max(fresh.workflows.total, known?.total ?? 0),
      completed: Math.max(fresh.workflows.completed, known?.completed ?? 0),
      failed: Math.max(fresh.workflows.failed, known?.failed ?? 0),
    },
    hasRecentProgress: fresh.hasRecentProgress || job.dcHasRecentProgress?.[region] === true,
  };
}

function sameFigures(job: GateJob, region: string, figures: RegionFigures): boolean {
  const known = job.dcWorkflows?.[region];
  return (
    job.dcTotalExtensions[region] === figures.totalExtensions &&
    job.dcMaxExtension[region] === figures.maxExtension &&
    job.dcWorkersWithExtensions[region] === figures.workersWithExtensions &&
    known?.total === figures.workflows.total &&
    known.completed === figures.workflows.completed &&
    known.failed === figures.workflows.failed &&
    job.dcHasRecentProgress?.[region] === figures.hasRecentProgress
  );
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
