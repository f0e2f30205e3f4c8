import { EVENT_HANDLER_RETRY_ATTEMPTS, TIMER_MAX_RECEIVES, TIMER_VISIBILITY_TIMEOUT_SECONDS } from '../../config/delivery-settings.js';
import type { RetryPolicy } from './world.js';

/**
 * Lambda's async invocation (an EventBridge target), as deployed: a failed handler is tried again
 * after a minute, then after two more, then its event goes to the DLQ (infra review: this said six
 * attempts while AWS allows three).
 */
export const ASYNC_EVENT_RETRY: RetryPolicy = { delayMs: (attempt) => 60_000 * attempt, maxAttempts: 1 + EVENT_HANDLER_RETRY_ATTEMPTS };
/** An SQS message comes back after its visibility timeout (as deployed: 180 s, not 30), up to the queue's maxReceiveCount. */
export const SQS_RETRY: RetryPolicy = { delayMs: () => TIMER_VISIBILITY_TIMEOUT_SECONDS * 1000, maxAttempts: TIMER_MAX_RECEIVES };
/** A scheduled run (the sweep) is not retried: the next one comes a minute later. */
export const NO_RETRY: RetryPolicy = { delayMs: () => 0, maxAttempts: 1 };
/** A well-behaved HTTP client retries a failed call a few times, a few seconds apart. */
export const CLIENT_RETRY: RetryPolicy = { delayMs: (attempt) => 2_000 * attempt, maxAttempts: 4 };
/** How long EventBridge keeps retrying a target it cannot reach before trying again. */
export const UNREACHABLE_RETRY_MS = 60_000;
