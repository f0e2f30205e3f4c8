import { SWEEP_GRACE_MS } from './sweep-job-timers.js';

/** How often the backstop sweep runs on AWS (`infra/constructs/backstop-sweep.ts`: every minute). */
export const SWEEP_INTERVAL_MS = 60_000;

/**
 * The stated detection bound: a RUNNING job ends by its effective deadline (or its stuck deadline)
 * plus this, even when its own wake-up is lost, because the sweep fires every wake-up overdue by more
 * than its grace, once per interval. A delivered wake-up ends it within a second or two.
 */
export const DETECTION_BOUND_MS = SWEEP_INTERVAL_MS + SWEEP_GRACE_MS;
