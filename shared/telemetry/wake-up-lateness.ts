import type { EpochMs } from '../domain/time.js';

/**
 * The timer queue's lateness, in milliseconds, by the consumer that ran the wake-ups (dimension
 * `function_name`, so the gate's and the region's consumers in one region are told apart): one value
 * per batch, its latest first delivery. SQS's `ApproximateAgeOfOldestMessage` cannot stand in for it:
 * the age counts from the send, so a wake-up sent with a 15-minute delay is 900 s old when it falls
 * due, on time.
 */
export const WAKE_UP_LATENESS_METRIC = 'WakeUpLateness';
export const WAKE_UP_LATENESS_DIMENSION = 'function_name';

/**
 * How long the queue held a wake-up past the moment it was both due and sent: a wake-up armed for a
 * deadline already past (a retired grant) was not late before it was sent, and one that arrives
 * early (a schedule's hop) is not late at all.
 */
export const wakeUpLatenessMs = (dueAt: EpochMs, sentAt: EpochMs, firedAt: EpochMs): number => Math.max(0, firedAt - Math.max(dueAt, sentAt));
