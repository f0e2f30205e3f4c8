import type { Effect } from '../../../shared/domain/effects.js';
import { regionsNotFinal, type GateJob } from '../../../shared/domain/gate/gate-job.js';
import { CLOCK_SKEW_ALLOWANCE_MS } from '../../../shared/domain/job-timer.js';
import { defaultGatePolicy, type GatePolicy } from '../../../shared/domain/gate/gate-policy.js';
import { onProgressReport } from '../../../shared/domain/gate/on-progress-report.js';
import { markRegionSubmitted } from '../../../shared/domain/gate/region-submission.js';
import { startGateJob } from '../../../shared/domain/gate/start-gate-job.js';
import { toIso, type EpochMs } from '../../../shared/domain/time.js';
import { JobFinalStatus } from '../../../shared/events/job-final-status.js';
import { JobLeaderTransfer } from '../../../shared/events/job-leader-transfer.js';
import { JobProgressReport } from '../../../shared/events/job-progress-report.js';
import { JobTimeoutReport } from '../../../shared/events/job-timeout-report.js';

export const T0: EpochMs = Date.parse('2026-03-01T12:00:00.000Z');
export const REGIONS = ['us-east-1', 'eu-west-1', 'ap-southeast-2'] as const;
export const [US, EU, AP] = REGIONS;
export const policy: GatePolicy = defaultGatePolicy;
export const seconds = (s: number): number => s * 1000;

/** A gate job submitted at T0 to the three regions, every region accepted at fence token 1. */
export function runningGateJob(timeoutSeconds = 300, regions: readonly string[] = REGIONS): GateJob {
  const datacenters = Object.fromEntries(regions.map((region) => [region, { workflows: [] }]));
  let job = startGateJob({ jobId: 'job-1', timeoutSeconds, datacenters }, 'digest', T0).state;
  for (const region of regions) job = markRegionSubmitted(job, region, 1).state;
  return job;
}

/**
 * The withdrawal of an undecided job's wake-ups (decision counter 0), whose furthest was its first, armed
 * at submission for the global deadline and its grace: it says so (plus the clock allowance), so the
 * adapter deletes a schedule only if one may exist. A decision withdraws them the same way.
 */
export const gateDisarm = (timeoutSeconds = 300): Effect => ({
  type: 'DisarmTimer',
  timer: { scope: 'gate', jobId: 'job-1', fenceToken: 0 },
  armedAtMostMsAhead: seconds(timeoutSeconds + policy.extensionReportGraceSeconds) + CLOCK_SKEW_ALLOWANCE_MS,
});

/** The withdrawal of a decided job's wake-ups (decision counter 1): only its re-sends were armed under it. */
export const decidedGateDisarm = (): Effect => ({
  type: 'DisarmTimer',
  timer: { scope: 'gate', jobId: 'job-1', fenceToken: 1 },
  armedAtMostMsAhead: seconds(policy.rebroadcastSeconds) + CLOCK_SKEW_ALLOWANCE_MS,
});

/**
 * Every running region's periodic report sent at `at`, with the extension figures the gate already
 * holds and progress just made: a gate that heard from each region past its deadline knows every
 * grant, and decides condition 1 at its due time without waiting for reports (on-gate-timer-fired.ts).
 */
export function heardFromEveryRegion(job: GateJob, at: EpochMs): GateJob {
  for (const region of regionsNotFinal(job)) {
    const figures = { totalExtensions: job.dcTotalExtensions[region] ?? 0, maxExtension: job.dcMaxExtension[region] ?? 0, workers: job.dcWorkersWithExtensions[region] ?? 0 };
    job = onProgressReport(job, progressReport(region, { sentAt: at, lastProgressAt: at, fenceToken: job.dcFenceToken[region] ?? 1, ...figures }), at, policy).state;
  }
  return job;
}

// Events are built and parsed through their contracts, so the tests feed the gate what the bus carries.
export function progressReport(
  region: string,
  at: {
    sentAt: EpochMs;
    lastProgressAt: EpochMs;
    fenceToken?: number;
    totalExtensions?: number;
    maxExtension?: number;
    workers?: number;
    /** The manager's own flag; by default what a manager with a 10 s report interval would send. */
    hasRecentProgress?: boolean;
    workflows?: { total: number; completed: number; failed: number };
  },
) {
  const event = JobProgressReport.build({
    jobId: 'job-1',
    region,
    gateRegion: 'us-east-1',
    managerId: `${region}-manager`,
    workflowsTotal: at.workflows?.total ?? 2,
    workflowsCompleted: at.workflows?.completed ?? 0,
    workflowsFailed: at.workflows?.failed ?? 0,
    hasRecentProgress: at.hasRecentProgress ?? at.sentAt - at.lastProgressAt < seconds(10),
    lastProgressAt: toIso(at.lastProgressAt),
    timestamp: toIso(at.sentAt),
    fenceToken: at.fenceToken ?? 1,
    totalExtensionsGranted: at.totalExtensions ?? 0,
    maxWorkerExtension: at.maxExtension ?? 0,
    workersWithExtensions: at.workers ?? 0,
  });
  return JobProgressReport.parse(event.detail);
}

export function timeoutReport(region: string, reason: 'timeout' | 'stuck', fenceToken = 1) {
  const event = JobTimeoutReport.build({
    jobId: 'job-1',
    region,
    gateRegion: 'us-east-1',
    managerId: `${region}-manager`,
    reason,
    elapsedSeconds: 100,
    fenceToken,
  });
  return JobTimeoutReport.parse(event.detail);
}

export function leaderTransfer(region: string, fenceToken: number) {
  const event = JobLeaderTransfer.build({ jobId: 'job-1', region, gateRegion: 'us-east-1', newLeaderId: `${region}-manager-${fenceToken}`, fenceToken });
  return JobLeaderTransfer.parse(event.detail);
}

export function finalStatus(
  region: string,
  status: 'COMPLETED' | 'FAILED' | 'CANCELLED' | 'TIMED_OUT',
  options: { fenceToken?: number; timeoutReason?: string } = {},
) {
  const event = JobFinalStatus.build({
    jobId: 'job-1',
    region,
    gateRegion: 'us-east-1',
    managerId: `${region}-manager`,
    status,
    ...(options.timeoutReason !== undefined ? { timeoutReason: options.timeoutReason } : {}),
    timestamp: toIso(T0),
    fenceToken: options.fenceToken ?? 1,
  });
  return JobFinalStatus.parse(event.detail);
}

/** The published events among the effects, as `detailType` and detail. */
export const published = (effects: readonly Effect[]) =>
  effects.flatMap((effect) => (effect.type === 'Publish' ? [effect.event] : []));

/** Region → fence token of each `JobGlobalTimeout` among the effects. */
export function globalTimeoutsByRegion(effects: readonly Effect[]): Record<string, number> {
  const sent: Record<string, number> = {};
  for (const event of published(effects)) {
    if (event.detailType !== 'JobGlobalTimeout') continue;
    sent[String(event.detail.region)] = Number(event.detail.fenceToken);
  }
  return sent;
}

export const regionsCancelled = (effects: readonly Effect[]): string[] =>
  published(effects)
    .filter((event) => event.detailType === 'JobGlobalCancel')
    .map((event) => String(event.detail.region))
    .sort();

export const timerEffects = (effects: readonly Effect[]) =>
  effects.filter((effect) => effect.type === 'ArmTimer' || effect.type === 'DisarmTimer');
