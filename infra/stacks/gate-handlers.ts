import { Duration } from 'aws-cdk-lib';
import { decider, readOnly, type HandlerSpec } from '../constructs/handler-access.js';
import { TIMER_CONSUMER_TIMEOUT_SECONDS } from '../../shared/config/delivery-settings.js';
import { SWEEP_THROTTLED, TIMER_CONSUMER_THROTTLED } from './deadline-enforcer-throttles.js';

/** The gate's handlers (multi-DC coordination, AD-34 Part 5) and what each may touch. */
export const gateHandlers = {
  SubmitJob: {
    entry: 'functions/gate-api/submit-job.ts',
    description: 'POST /jobs (fans out to vigil-submit-from-gate in each region)',
    access: decider,
    timeout: Duration.seconds(29),
  },
  GetJob: { entry: 'functions/gate-api/get-job.ts', description: 'GET /jobs/{jobId}', access: readOnly },
  GetJobHistory: { entry: 'functions/gate-api/get-job-history.ts', description: 'GET /jobs/{jobId}/history', access: readOnly },
  // Its page cursors are sealed under the gate's key (the list's days hold every tenant's jobs).
  ListJobs: { entry: 'functions/gate-api/list-jobs.ts', description: 'GET /jobs', access: { ...readOnly, keySecret: true } },
  CancelJob: { entry: 'functions/gate-api/cancel-job.ts', description: 'POST /jobs/{jobId}/cancel (every region)', access: decider },
  Health: { entry: 'functions/api/health.ts', description: 'GET /health', access: undefined },
  OpenApi: { entry: 'functions/gate-api/openapi.ts', description: 'GET /openapi.json', access: undefined },
  Unrouted: { entry: 'functions/gate-api/unrouted.ts', description: 'The $default route: requests no route takes (404, OPTIONS)', access: undefined },
  OnManagerReport: {
    entry: 'functions/gate-events/on-manager-report.ts',
    description: 'Manager reports forwarded from every region',
    access: decider,
    timeout: Duration.seconds(30),
    whenThrottled: "regions' timeout reports reach the gate late (Lambda retries a throttled event, for hours), so its global timeouts come late and managers fall back alone: it has no reserved concurrency, so the account's is used up",
  },
  FireGateTimer: {
    entry: 'functions/timers/fire-gate-timer.ts',
    description: 'Gate timer queue consumer',
    access: decider,
    timeout: Duration.seconds(TIMER_CONSUMER_TIMEOUT_SECONDS),
    reservedConcurrency: 'timerConsumerConcurrency',
    whenThrottled: TIMER_CONSUMER_THROTTLED,
  },
  SweepGateTimers: {
    entry: 'functions/timers/sweep-gate-timers.ts',
    description: 'One-minute backstop sweep over the gate timer index',
    access: decider,
    timeout: Duration.seconds(55),
    reservedConcurrency: 'sweepConcurrency',
    whenThrottled: SWEEP_THROTTLED,
  },
} as const satisfies Record<string, HandlerSpec>;

export type GateHandlerName = keyof typeof gateHandlers;
export const GATE_TIMER_CONSUMER_TIMEOUT = gateHandlers.FireGateTimer.timeout;
