import { setTimeout as sleep } from 'node:timers/promises';
import { backoffDelayMs, type RetryPolicy } from '../sdk/backoff.js';

/** Attempts at one item after a lost conditional write: 5 ms, 10 ms, … up to 250 ms apart at most. */
const CONTENTION: RetryPolicy = { retries: 11, baseDelayMs: 5, maxDelayMs: 250 };

/**
 * Full jitter between attempts at one item: writers that collided spread out instead of colliding
 * again, so forty workers completing one job at once all get through. The simulator wires none and
 * retries at once, keeping each seed's run the same.
 */
export const jitteredBackoff = (attempt: number): Promise<void> => sleep(backoffDelayMs(CONTENTION, attempt));
