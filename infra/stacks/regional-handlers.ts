import { Duration } from 'aws-cdk-lib';
import { PhysicalNames } from '../config/physical-names.js';
import { decider, readOnly, type HandlerAccess, type HandlerSpec } from '../constructs/handler-access.js';
import { TIMER_CONSUMER_TIMEOUT_SECONDS } from '../../shared/config/delivery-settings.js';
import { SWEEP_THROTTLED, TIMER_CONSUMER_THROTTLED } from './deadline-enforcer-throttles.js';

const withTokens = (access: HandlerAccess): HandlerAccess => ({ ...access, keySecret: true });

// Submissions may carry up to 10,000 workflows; HTTP APIs cut integrations off at 30 s.
const SUBMIT_TIMEOUT = Duration.seconds(29);
/**
 * The gate's submit (29 s, its own API's limit) waits on this in every region, and stops waiting a
 * little after it (`GATE_SUBMIT_WAIT_MS`): a region slower than this answers as unreachable (503,
 * resend) while the gate still runs to record every other region's answer.
 */
export const SUBMIT_FROM_GATE_TIMEOUT = Duration.seconds(22);
export const TIMER_CONSUMER_TIMEOUT = Duration.seconds(TIMER_CONSUMER_TIMEOUT_SECONDS);

/** The region manager's handlers (ARCHITECTURE "Layers": one use case each) and what each may touch. */
export const regionalHandlers = {
  SubmitJob: { entry: 'functions/api/submit-job.ts', description: 'POST /jobs', access: withTokens(decider), timeout: SUBMIT_TIMEOUT },
  GetJob: { entry: 'functions/api/get-job.ts', description: 'GET /jobs/{jobId}', access: readOnly },
  GetJobTokens: { entry: 'functions/api/get-job-tokens.ts', description: 'GET /jobs/{jobId}/tokens', access: withTokens(readOnly) },
  GetJobHistory: { entry: 'functions/api/get-job-history.ts', description: 'GET /jobs/{jobId}/history', access: readOnly },
  // Its page cursors are sealed under a key derived from the token secret (the list's days hold every tenant's jobs).
  ListJobs: { entry: 'functions/api/list-jobs.ts', description: 'GET /jobs', access: withTokens(readOnly) },
  ReportProgress: {
    entry: 'functions/api/report-progress.ts',
    description: 'POST /jobs/{jobId}/workflows/{workflowId}/progress',
    // The hot path is item writes and the worker healthcheck, but a failed worker that reports again
    // gets a fresh budget, which retires its grants: job decisions that publish and re-arm wake-ups.
    access: withTokens(decider),
  },
  CompleteWorkflow: {
    entry: 'functions/api/complete-workflow.ts',
    description: 'POST /jobs/{jobId}/workflows/{workflowId}/complete',
    access: withTokens(decider),
  },
  RequestExtension: { entry: 'functions/api/request-extension.ts', description: 'POST /workers/{workerId}/extensions', access: withTokens(decider) },
  CancelJob: { entry: 'functions/api/cancel-job.ts', description: 'POST /jobs/{jobId}/cancel', access: decider },
  TakeOverJob: { entry: 'functions/api/take-over-job.ts', description: 'POST /jobs/{jobId}/takeover', access: decider },
  ReportWorkerFailure: { entry: 'functions/api/report-worker-failure.ts', description: 'POST /workers/{workerId}/failure', access: decider },
  Health: { entry: 'functions/api/health.ts', description: 'GET /health', access: undefined },
  OpenApi: { entry: 'functions/api/openapi.ts', description: 'GET /openapi.json', access: undefined },
  Unrouted: { entry: 'functions/api/unrouted.ts', description: 'The $default route: requests no route takes (404, OPTIONS)', access: undefined },
  // Agent fleets: one function per route family, dispatching on the route key to one handler module each.
  PoolClientApi: {
    entry: 'functions/pools/client-api.ts',
    description: 'Pool client routes (POST /pools, claims, DLQ, escalations, metrics, ...)',
    // Claims sign attempt tokens; creating a pool writes up to 10,000 items.
    access: withTokens(decider),
    timeout: SUBMIT_TIMEOUT,
  },
  PoolAgentApi: {
    entry: 'functions/pools/agent-api.ts',
    description: 'Pool agent routes (heartbeat, commands, checkpoints, complete, terminated)',
    access: withTokens(decider),
  },
  SubmitFromGate: {
    entry: 'functions/internal/submit-from-gate.ts',
    description: "The gate's per-region submission (direct invoke)",
    access: withTokens(decider),
    timeout: SUBMIT_FROM_GATE_TIMEOUT,
    functionName: PhysicalNames.submitFromGateFunction,
  },
  FireJobTimer: {
    entry: 'functions/timers/fire-job-timer.ts',
    description: 'Timer queue consumer',
    access: decider,
    timeout: TIMER_CONSUMER_TIMEOUT,
    reservedConcurrency: 'timerConsumerConcurrency',
    whenThrottled: TIMER_CONSUMER_THROTTLED,
  },
  // The sweep fires overdue timers in-process (shared/app/sweep-job-timers.ts), so it decides too.
  SweepJobTimers: {
    entry: 'functions/timers/sweep-job-timers.ts',
    description: 'One-minute backstop sweep over the timer index',
    access: decider,
    timeout: Duration.seconds(55),
    reservedConcurrency: 'sweepConcurrency',
    whenThrottled: SWEEP_THROTTLED,
  },
  OnGateDecision: {
    entry: 'functions/events/on-gate-decision.ts',
    description: 'JobGlobalTimeout / JobGlobalCancel from the gate',
    access: decider,
    timeout: Duration.seconds(30),
    whenThrottled: "the gate's global timeouts and cancels reach their jobs late (Lambda retries a throttled event, for hours): it has no reserved concurrency, so the account's is used up",
  },
} as const satisfies Record<string, HandlerSpec>;

export type RegionalHandlerName = keyof typeof regionalHandlers;

/** Context `workerFunctionUrl`: the worker and agent routes of the functions above, in one function behind a URL. */
export const workerUrlHandler: HandlerSpec = {
  entry: 'functions/worker/function-url.ts',
  description: 'Worker and agent routes behind a Lambda function URL (progress, complete, extensions, agent calls)',
  access: withTokens(decider),
  reservedConcurrency: 'workerUrlConcurrency',
  // Not a decision held back: honest workers get 429 too, and a progress report that never lands can let a job be judged stuck.
  whenThrottled: 'calls were refused at its reserved concurrency: a flood, or more workers than it allows (context workerUrlConcurrency)',
};
