/** Why the timer consumer and the sweep of each stack, the region's and the gate's, alarm on their first throttle. */
export const TIMER_CONSUMER_THROTTLED =
  "due wake-ups wait in the timer queue and their jobs end late, and each throttled batch counts a receive toward the DLQ: its reserved concurrency (context timerConsumerConcurrency) or, with none, the account's is used up";
export const SWEEP_THROTTLED =
  "a minute's backstop sweep ran late or not at all (it is kept a minute, not retried), so lost wake-ups wait a sweep more, past the detection bound: its reservation (context sweepConcurrency) or, with none, the account's concurrency is used up";
