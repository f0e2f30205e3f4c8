/**
 * How AWS delivers to Vigil's handlers, as the CDK app configures it (infra/). The simulator replays
 * the same retries (shared/simulation/world/delivery.ts), so its runs hold for what is deployed.
 */

/** A timer queue's consumer may run this long (both the regions' and the gate's). */
export const TIMER_CONSUMER_TIMEOUT_SECONDS = 30;
/** AWS guidance for a Lambda consuming SQS: a visibility timeout of six times its timeout. A failed wake-up comes back after it. */
export const TIMER_VISIBILITY_TIMEOUT_SECONDS = 6 * TIMER_CONSUMER_TIMEOUT_SECONDS;
/** Wake-ups a timer queue's consumer takes per invocation; it runs those of different jobs side by side. */
export const TIMER_BATCH_SIZE = 10;
/** Receives of a timer message before its queue's DLQ takes it. */
export const TIMER_MAX_RECEIVES = 5;
/** Retries of a failed event handler (EventBridge → Lambda, asynchronous): Lambda allows at most two. */
export const EVENT_HANDLER_RETRY_ATTEMPTS = 2;
