import type { RetryPolicy } from './world.js';

/** Lambda's async invocation (an EventBridge target): retried with growing delays. */
export const ASYNC_EVENT_RETRY: RetryPolicy = { delayMs: (attempt) => 60_000 * attempt, maxAttempts: 6 };
/** An SQS message comes back after its visibility timeout, up to the queue's maxReceiveCount. */
export const SQS_RETRY: RetryPolicy = { delayMs: () => 30_000, maxAttempts: 5 };
/** A scheduled run (the sweep) is not retried: the next one comes a minute later. */
export const NO_RETRY: RetryPolicy = { delayMs: () => 0, maxAttempts: 1 };
/** A well-behaved HTTP client retries a failed call a few times, a few seconds apart. */
export const CLIENT_RETRY: RetryPolicy = { delayMs: (attempt) => 2_000 * attempt, maxAttempts: 4 };
/** How long EventBridge keeps retrying a target it cannot reach before trying again. */
export const UNREACHABLE_RETRY_MS = 60_000;
