export interface RetryPolicy {
  /** Retries after the first try. */
  retries: number;
  baseDelayMs: number;
  maxDelayMs: number;
}

export const defaultRetryPolicy: RetryPolicy = { retries: 4, baseDelayMs: 200, maxDelayMs: 5_000 };

/** Full jitter: a random delay up to base · 2^attempt, capped, so retrying workers do not align. */
export function backoffDelayMs(policy: RetryPolicy, attempt: number, random: () => number = Math.random): number {
  return Math.round(random() * Math.min(policy.maxDelayMs, policy.baseDelayMs * 2 ** attempt));
}
