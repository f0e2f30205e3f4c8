import type { TimeoutStrategyType } from '../domain/job.js';
import type { TimeoutPolicy } from '../domain/policy.js';
import { SWEEP_GRACE_MS } from './sweep-job-timers.js';

/** How often the backstop sweep runs on AWS (`infra/constructs/backstop-sweep.ts`: every minute). */
export const SWEEP_INTERVAL_MS = 60_000;

/** What delivering and running a fired wake-up may take (a queue hop, a cold start, a retried write). */
export const DELIVERY_SLACK_MS = 5_000;

/**
 * The stated detection bound: a RUNNING local-authority job ends by its effective deadline (or its
 * stuck deadline) plus this, even when its own wake-up is lost, because the sweep fires every
 * wake-up overdue by more than its grace, once per interval. A delivered wake-up ends it within a
 * second or two. A deadline moved into the past (a retired grant) is detected from that moment.
 */
export const DETECTION_BOUND_MS = SWEEP_INTERVAL_MS + SWEEP_GRACE_MS + DELIVERY_SLACK_MS;

/**
 * The bound by strategy. A gate-coordinated manager reports its local timeout and waits for the gate
 * at most `gateFallbackSeconds`, re-reporting every `gateReportIntervalSeconds`, then acts alone.
 */
export const detectionBoundMs = (strategy: TimeoutStrategyType, policy: TimeoutPolicy): number =>
  strategy === 'local_authority'
    ? DETECTION_BOUND_MS
    : DETECTION_BOUND_MS + (policy.gateFallbackSeconds + policy.gateReportIntervalSeconds) * 1_000;
