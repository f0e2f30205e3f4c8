import type { DecisionContext } from './decision-context.js';
import { publishResent, type Decision } from './effects.js';
import { workflowCounts, type Job, type TimeoutReason } from './job.js';
import { msToSeconds, secondsToMs, toIso } from './time.js';
import { JobProgressReport } from '../events/job-progress-report.js';
import { JobTimeoutReport } from '../events/job-timeout-report.js';
import { JobLeaderTransfer } from '../events/job-leader-transfer.js';
import { progressCoalesceMs } from './deadlines.js';

function gateRegionOf(job: Job): string {
  if (job.tracking.gateRegion === undefined) throw new Error(`job ${job.jobId} is not gate-coordinated`);
  return job.tracking.gateRegion;
}

export function progressReport(job: Job, ctx: DecisionContext) {
  const t = job.tracking;
  const counts = workflowCounts(job);
  const recentWindowMs = secondsToMs(ctx.policy.gateReportIntervalSeconds) + progressCoalesceMs(t.stuckThresholdSeconds);
  return JobProgressReport.build({
    jobId: job.jobId,
    region: job.region,
    gateRegion: gateRegionOf(job),
    managerId: ctx.managerId,
    workflowsTotal: counts.total,
    workflowsCompleted: counts.completed,
    workflowsFailed: counts.failed,
    hasRecentProgress: ctx.now - t.lastProgressAt < recentWindowMs,
    lastProgressAt: toIso(t.lastProgressAt),
    timestamp: toIso(ctx.now),
    fenceToken: t.fenceToken,
    totalExtensionsGranted: t.totalExtensionsGranted,
    maxWorkerExtension: t.maxWorkerExtension,
    workersWithExtensions: t.workersWithExtensions,
  });
}

export function timeoutReport(job: Job, reason: Extract<TimeoutReason, 'timeout' | 'stuck'>, ctx: DecisionContext) {
  return JobTimeoutReport.build({
    jobId: job.jobId,
    region: job.region,
    gateRegion: gateRegionOf(job),
    managerId: ctx.managerId,
    reason,
    elapsedSeconds: msToSeconds(ctx.now - job.tracking.startedAt),
    fenceToken: job.tracking.fenceToken,
  });
}

export function leaderTransfer(job: Job, ctx: DecisionContext) {
  return JobLeaderTransfer.build({
    jobId: job.jobId,
    region: job.region,
    gateRegion: gateRegionOf(job),
    newLeaderId: ctx.managerId,
    fenceToken: job.tracking.fenceToken,
  });
}

/**
 * AD-34 Part 8 across regions: an extension moves the global deadline only once the gate hears of
 * it, and the periodic report may come after the old deadline has passed. So a decision that moved
 * a gate-coordinated job's extension total tells the gate at once; the periodic report still follows.
 */
export function withExtensionReport(decision: Decision<Job>, ctx: DecisionContext): Decision<Job> {
  const job = decision.state;
  if (decision.ignored !== undefined || job.status !== 'RUNNING' || job.tracking.gateRegion === undefined) return decision;
  return { ...decision, effects: [...decision.effects, publishResent(progressReport(job, ctx))] };
}
