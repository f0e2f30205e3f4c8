import type { DecisionContext } from '../../shared/domain/decision-context.js';
import { nextDueAt } from '../../shared/domain/deadlines.js';
import type { Effect, MetricName } from '../../shared/domain/effects.js';
import { WorkflowMark, type Job, type TimeoutTrackingState, type Workflow } from '../../shared/domain/job.js';
import { defaultTimeoutPolicy, type TimeoutPolicy } from '../../shared/domain/policy.js';
import type { EpochMs } from '../../shared/domain/time.js';
import type { BusEvent } from '../../shared/ports/event-bus.js';
import type { TimerRequest } from '../../shared/ports/timers.js';
import { recordWorkerExtension } from '../../shared/domain/worker-extensions.js';

/**
 * Plain-value fixtures for the pure domain: a job that started at T0, a policy, a decision
 * context at a given instant. Times are absolute epoch milliseconds, as the domain stores them.
 */
export const T0: EpochMs = Date.parse('2026-03-01T12:00:00.000Z');

/** The instant `s` seconds after T0. */
export const at = (s: number): EpochMs => T0 + Math.round(s * 1000);

export const REGION = 'eu-west-1';
export const GATE_REGION = 'us-east-1';
export const MANAGER_ID = `${REGION}/test-manager`;

export const policy = (overrides: Partial<TimeoutPolicy> = {}): TimeoutPolicy => ({ ...defaultTimeoutPolicy, ...overrides });

export const context = (now: EpochMs, overrides: Partial<TimeoutPolicy> = {}): DecisionContext => ({
  now,
  policy: policy(overrides),
  managerId: MANAGER_ID,
});

export interface JobOptions {
  jobId?: string;
  timeoutSeconds?: number;
  stuckThresholdSeconds?: number;
  fenceToken?: number;
  /** One workflow per entry, `wf-1`, `wf-2`, … in this order. */
  workers?: readonly string[];
  gateRegion?: string;
  tracking?: Partial<TimeoutTrackingState>;
}

/**
 * A RUNNING job started at T0, its timer armed for its next wake-up under the default policy
 * (as `startJob` would leave it). Defaults: 60 s timeout, 120 s stuck threshold, one workflow of `worker-a`.
 */
export function runningJob(options: JobOptions = {}): Job {
  const workers = options.workers ?? ['worker-a'];
  const tracking: TimeoutTrackingState = {
    strategy: options.gateRegion === undefined ? 'local_authority' : 'gate_coordinated',
    ...(options.gateRegion !== undefined ? { gateRegion: options.gateRegion } : {}),
    startedAt: T0,
    lastProgressAt: T0,
    lastReportAt: T0,
    timeoutSeconds: options.timeoutSeconds ?? 60,
    stuckThresholdSeconds: options.stuckThresholdSeconds ?? 120,
    totalExtensionsGranted: 0,
    maxWorkerExtension: 0,
    lastExtensionAt: 0,
    workersWithExtensions: 0,
    locallyTimedOut: false,
    globallyTimedOut: false,
    fenceToken: options.fenceToken ?? 1,
    ...options.tracking,
  };
  const job: Job = {
    jobId: options.jobId ?? 'job-1',
    region: REGION,
    status: 'RUNNING',
    version: 1,
    submissionDigest: 'digest',
    incarnation: 'incarnation-1',
    createdAt: T0,
    tracking,
    workflowMarks: WorkflowMark.active.repeat(workers.length),
  };
  return { ...job, timerDueAt: nextDueAt(job, defaultTimeoutPolicy) };
}

/** A job the gate submitted (`gateRegion` set): gate-coordinated. */
export const gateCoordinatedJob = (options: Omit<JobOptions, 'gateRegion'> = {}): Job =>
  runningJob({ ...options, gateRegion: GATE_REGION });

/** The workflow items of a fixture job, in submission order. */
export function workflowsOf(job: Job, workers: readonly string[] = ['worker-a']): Workflow[] {
  return workers.map((workerId, index) => ({ jobId: job.jobId, workflowId: `wf-${index + 1}`, workerId, index, incarnation: job.incarnation }));
}

export function workflowAt(workflows: readonly Workflow[], index: number): Workflow {
  const workflow = workflows[index];
  if (!workflow) throw new Error(`fixture has no workflow at index ${index}`);
  return workflow;
}

/** The wake-up the job last asked for: its current fence token and due time (or another token). */
export const timerOf = (job: Job, fenceToken = job.tracking.fenceToken): { fenceToken: number; dueAt?: EpochMs } => ({
  fenceToken,
  ...(job.timerDueAt !== undefined ? { dueAt: job.timerDueAt } : {}),
});

// Reading effects: tests assert on what a decision asks for, by kind.
export const armedTimers = (effects: readonly Effect[]): TimerRequest[] =>
  effects.flatMap((effect) => (effect.type === 'ArmTimer' ? [effect.timer] : []));

export const disarmedJobs = (effects: readonly Effect[]): string[] =>
  effects.flatMap((effect) => (effect.type === 'DisarmTimer' ? [effect.timer.jobId] : []));

export const publishedEvents = (effects: readonly Effect[], detailType?: string): BusEvent[] =>
  effects.flatMap((effect) =>
    effect.type === 'Publish' && (detailType === undefined || effect.event.detailType === detailType) ? [effect.event] : [],
  );

export const metricsOf = (effects: readonly Effect[]): Array<{ name: MetricName; dimensions?: Record<string, string> }> =>
  effects.flatMap((effect) =>
    effect.type === 'Metric' ? [{ name: effect.name, ...(effect.dimensions ? { dimensions: effect.dimensions } : {}) }] : [],
  );

/**
 * The decision to apply a grant of worker `workerIndex` (its budget's total `seconds`, grant
 * (epoch, count), 1st of budget 0 by default) to the job at `now`.
 */
export const extensionOf = (job: Job, workerIndex: number, seconds: number, now: EpochMs, grant: { epoch?: number; count?: number } = {}) =>
  recordWorkerExtension(job, [workerIndex], { workerIndex, epoch: grant.epoch ?? 0, count: grant.count ?? 1, seconds }, false, context(now));

/** The job after `extensionOf`. */
export const extendedBy = (...args: Parameters<typeof extensionOf>): Job => extensionOf(...args).state;
