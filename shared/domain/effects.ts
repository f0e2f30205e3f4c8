import type { BusEvent } from '../ports/event-bus.js';
import type { TimerRef, TimerRequest } from '../ports/timers.js';

export type MetricName =
  | 'JobTimedOut'
  | 'ExtensionGranted'
  | 'ExtensionDenied'
  | 'StaleMessageRejected'
  | 'JobFinished'
  | 'GlobalTimeoutDeclared'
  // A wake-up that arrived and was dropped by a lazy check (dimension `reason`: superseded_timer, already_terminal, …).
  | 'WakeUpDropped'
  // An outbox past its bound while the bus was down: its oldest events were dropped (outbox-bound.ts).
  | 'OutboxEventsDropped'
  // A backstop sweep spent its time budget with overdue wake-ups left (sweep-due-timers.ts): the detection bound is at risk.
  | 'SweepDueLeft'
  // A swept decision wake-up whose fire ended later than its due time plus the detection bound (swept-past-bound.ts).
  | 'SweptWakeUpPastBound'
  // An event the bus refused for good (a non-retryable entry error): logged whole and let go (decide-and-save.ts).
  | 'EventsRefused'
  // A timer the decision no longer needed was not withdrawn (dimension `scope`); its wake-up is dropped when it comes (effect-runner.ts).
  | 'TimerDisarmFailed'
  // Agent fleets (seed 003 §3): the timeout rate alarm is AgentTimedOut ÷ AgentStarted.
  | 'AgentStarted'
  | 'AgentCompleted'
  | 'AgentTimedOut'
  | 'AgentStalled'
  | 'CheckpointMissed'
  | 'ItemDeadLettered'
  | 'TaskEscalated'
  | 'PoolFinished';

/** Effects are plain data. The app layer runs them after the state write; each is idempotent. */
export type Effect =
  | { type: 'ArmTimer'; timer: TimerRequest }
  /**
   * Withdraws the wake-up armed at `timer`'s fence token. `armedAtMostMsAhead`: when known, no wake-up
   * of this timer was ever due more than this long after the moment it was armed, so an adapter that
   * can withdraw only its far wake-ups may skip the call.
   */
  | { type: 'DisarmTimer'; timer: TimerRef; armedAtMostMsAhead?: number }
  /**
   * `resent`: a timer sends this again until it is answered (periodic reports, the gate's decisions),
   * so losing one to a crash costs nothing and it skips the outbox and its extra write.
   */
  | { type: 'Publish'; event: BusEvent; resent?: true }
  | { type: 'Metric'; name: MetricName; dimensions?: Record<string, string> };

export interface Decision<State> {
  state: State;
  effects: Effect[];
  /** Why nothing changed, when nothing did: for logs and tests. */
  ignored?: string;
}

/** Returns the very same state object, so callers can skip the write with `next === prev`. */
export const unchanged = <State>(state: State, ignored: string, effects: Effect[] = []): Decision<State> => ({
  state,
  effects,
  ignored,
});

export const metric = (name: MetricName, dimensions?: Record<string, string>): Effect => ({
  type: 'Metric',
  name,
  ...(dimensions ? { dimensions } : {}),
});

export const publish = (event: BusEvent): Effect => ({ type: 'Publish', event });
export const publishResent = (event: BusEvent): Effect => ({ type: 'Publish', event, resent: true });
