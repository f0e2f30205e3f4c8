import type { Decision, Effect } from '../domain/effects.js';
import type { EpochMs } from '../domain/time.js';
import type { BusEvent } from '../ports/event-bus.js';
import { VersionConflictError } from '../ports/job-store.js';
import { outboxEvents, publishedEvents, runEffects, type EffectPorts } from './effect-runner.js';
import { boundOutbox, outboxRoom } from './outbox-bound.js';
import { retryDelayMs, RETRY_BASE_MS } from './retry-backoff.js';

/** How soon an outbox is first retried after its publish failed (the sweep picks the wake-up up). */
export const OUTBOX_RETRY_MS = RETRY_BASE_MS;

/** A state item with optimistic concurrency, a durable wake-up and a transactional outbox. */
export interface OutboxState {
  version: number;
  timerDueAt?: EpochMs;
  outbox?: BusEvent[];
  /** Flushes of this outbox that failed in a row (its publish, or a finished item's view); the retry wake-up backs off with it. */
  outboxFailures?: number;
  /**
   * The item finished and its view (its row in the jobs list) is not yet known to be written: kept
   * with the outbox, and like it, with a retry wake-up until the view is written.
   */
  viewPending?: boolean;
  /** Fires of this wake-up that failed in a row (the sweep backs it off); a decision's write clears it. */
  timerFailures?: number;
}

export interface VersionedStore<State extends OutboxState> {
  load(id: string): Promise<State | undefined>;
  save(state: State, expectedVersion: number): Promise<State>;
  /** A finished item keeps a wake-up only while its outbox is not yet published or its view not yet written. */
  isFinished(state: State): boolean;
  /**
   * Called once per saved decision with the state before and after it (the decision history and the
   * item's row); `finishing` when the decision ended the item. False when not written.
   */
  recordHistory?: (before: State, after: State, at: EpochMs, finishing: boolean) => Promise<boolean>;
  /**
   * Writes a finished item's view (its row in the jobs list) again; false when not written. A store
   * with views marks the write that finishes an item `viewPending` and clears it with the outbox only
   * once the view is written, so a crash or a failed write between the decision and its view is
   * repaired by the outbox's retry (or the redelivered call) instead of leaving the item listed as
   * running. It costs a write only where the finish had nothing to publish.
   */
  rewriteFinishedView?: (state: State) => Promise<boolean>;
  /** The outbox without events a later one in it already says (the store's own rule), before each write. */
  compactOutbox?: (events: readonly BusEvent[], now: EpochMs) => BusEvent[];
}

/** Attempts at one decision when others keep writing first; then the caller answers 503 `busy`, having changed nothing. */
export const MAX_DECIDE_ATTEMPTS = 12;

/**
 * Load, decide, write once (conditional on the version read), then act. A version conflict means
 * someone else wrote first: decide again on what they wrote. Events decided together with a state
 * change are stored in the item's outbox by the same write and published after it, so a crash in
 * between loses none; the next wake-up (or the sweep) publishes them. Deciding and writing never
 * wait on the bus: a failed publish leaves the outbox with a backed-off retry wake-up.
 */
export async function decideAndSave<State extends OutboxState>(
  store: VersionedStore<State>,
  ports: EffectPorts,
  id: string,
  now: () => EpochMs,
  decide: (state: State) => Decision<State>,
  onMissing: () => Error,
  /** The state as the caller just read it: saves the first load. */
  alreadyLoaded?: State,
): Promise<{ state: State; decision: Decision<State> }> {
  for (let attempt = 1; ; attempt++) {
    const current = attempt === 1 && alreadyLoaded ? alreadyLoaded : await store.load(id);
    if (!current) throw onMissing();
    const decision = decide(current);
    if (decision.state === current) {
      // Nothing to write, so nothing goes through the outbox: a reply lost to an outage is asked for again.
      await runSideEffects(ports, decision.effects, () => true);
      return { state: await flushOutbox(store, ports, current, now()), decision };
    }
    let stored: State;
    try {
      const { timerFailures: _cleared, ...decided } = decision.state;
      stored = await store.save(withOutbox(store, ports, current, decided as State, decision.effects, now()), current.version);
    } catch (error) {
      if (!(error instanceof VersionConflictError) || attempt >= MAX_DECIDE_ATTEMPTS) throw error;
      await ports.backoff?.(attempt);
      continue;
    }
    // The history is a view beside the decision: recorded alongside the effects, never delaying them.
    const finishing = store.isFinished(stored) && !store.isFinished(current);
    const [recorded] = await Promise.all([
      store.recordHistory ? store.recordHistory(current, stored, now(), finishing) : true,
      runSideEffects(ports, decision.effects, (effect) => effect.resent === true),
    ]);
    // The history records what changed: only the decision that finished the item wrote its final row.
    const viewWritten = recorded && !store.isFinished(current);
    return { state: await flushOutbox(store, ports, stored, now(), viewWritten), decision };
  }
}

type PublishEffect = Extract<Effect, { type: 'Publish' }>;

/**
 * Timers and metrics, then the events that skip the outbox (`direct`): re-sent ones (periodic reports,
 * the gate's decisions) and replies decided without a write. Each is sent again until answered, so a
 * bus outage costs one of them, never the decision.
 */
async function runSideEffects(ports: EffectPorts, effects: readonly Effect[], direct: (effect: PublishEffect) => boolean): Promise<void> {
  await runEffects(ports, effects.filter((effect) => effect.type !== 'Publish'));
  const events = publishedEvents(effects.filter((effect) => effect.type === 'Publish' && direct(effect)));
  if (events.length === 0) return;
  try {
    await ports.bus.publish(events);
  } catch (error) {
    ports.telemetry.warn('events not published; they are sent again until answered', { events: events.length, error: String(error) });
  }
}

function withOutbox<State extends OutboxState>(
  store: VersionedStore<State>,
  ports: EffectPorts,
  before: State,
  state: State,
  effects: readonly Effect[],
  now: EpochMs,
): State {
  const events = outboxEvents(effects);
  const finishing = store.rewriteFinishedView !== undefined && store.isFinished(state) && !store.isFinished(before);
  if (events.length === 0 && !finishing) {
    // An outbox left by an outage rides on every write: what the write adds (a split's subtasks) may leave it less room.
    return state.outbox?.length ? { ...state, outbox: boundedOutbox(store, ports, state.outbox, outboxRoom(state), now) } : state;
  }
  const pending: State = {
    ...state,
    ...(events.length > 0 ? { outbox: boundedOutbox(store, ports, [...(state.outbox ?? []), ...events], outboxRoom(state), now) } : {}),
    ...(finishing ? { viewPending: true } : {}),
  };
  return store.isFinished(state) ? { ...pending, timerDueAt: now + OUTBOX_RETRY_MS } : pending;
}

function boundedOutbox<State extends OutboxState>(store: VersionedStore<State>, ports: EffectPorts, events: BusEvent[], roomBytes: number, now: EpochMs): BusEvent[] {
  const { kept, dropped } = boundOutbox(store.compactOutbox ? store.compactOutbox(events, now) : events, roomBytes);
  if (dropped > 0) {
    ports.telemetry.error('outbox full while the bus is down: its oldest events dropped', { dropped, kept: kept.length });
    ports.telemetry.metric('OutboxEventsDropped');
  }
  return kept;
}

/** Whether an item still owes a publish or its view (and so keeps its retry wake-up once finished). */
export const hasPending = (state: OutboxState): boolean => (state.outbox?.length ?? 0) > 0 || state.viewPending === true;

/**
 * Publishes the outbox and clears it. If another write got in first, it carries the outbox on. If the
 * bus fails, the outbox stays and the item's wake-up moves to a backed-off retry (never later than
 * the wake-up it already had), so the sweep retries it on its own. A finished item's pending view is
 * written first unless the decision just wrote it (`viewWritten`); if that fails the outbox stays the
 * same way.
 */
export async function flushOutbox<State extends OutboxState>(
  store: VersionedStore<State>,
  ports: EffectPorts,
  state: State,
  now: EpochMs,
  viewWritten = false,
): Promise<State> {
  if (!hasPending(state)) return state;
  try {
    if (state.outbox && state.outbox.length > 0) await ports.bus.publish(state.outbox);
  } catch (error) {
    // A view this decision wrote need not be written again by the retry.
    const { viewPending: _written, ...rest } = state;
    return deferOutbox(store, ports, viewWritten ? (rest as State) : state, now, 'outbox not published', error);
  }
  if (!viewWritten && state.viewPending === true && store.rewriteFinishedView && !(await store.rewriteFinishedView(state))) {
    return deferOutbox(store, ports, state, now, "finished item's view not written", undefined);
  }
  const { outbox: _published, outboxFailures: _failures, viewPending: _viewWritten, ...rest } = state;
  let cleared = rest as State;
  if (store.isFinished(cleared)) {
    const { timerDueAt: _retry, ...withoutTimer } = cleared;
    cleared = withoutTimer as State;
  }
  return saveUnlessOvertaken(store, cleared, state);
}

async function deferOutbox<State extends OutboxState>(
  store: VersionedStore<State>,
  ports: EffectPorts,
  state: State,
  now: EpochMs,
  what: string,
  error: unknown,
): Promise<State> {
  const outboxFailures = (state.outboxFailures ?? 0) + 1;
  const retryAt = now + retryDelayMs(outboxFailures);
  // A running item's own wake-up, if sooner, stays: it publishes the outbox too, and an overdue one
  // still owes a decision that must not wait for the retry.
  const keepsEarlierWakeUp = !store.isFinished(state) && state.timerDueAt !== undefined && state.timerDueAt < retryAt;
  const timerDueAt = keepsEarlierWakeUp ? (state.timerDueAt as EpochMs) : retryAt;
  ports.telemetry.warn(`${what}; retrying later`, { events: state.outbox?.length ?? 0, outboxFailures, retryAt, ...(error !== undefined ? { error: String(error) } : {}) });
  return saveUnlessOvertaken(store, { ...state, outboxFailures, timerDueAt }, state);
}

/**
 * A wake-up whose fire failed moves back, doubling: a failing item must not keep its
 * place at the head of the sweep. Nothing moves if the item has another wake-up by now.
 */
export async function backOffFailedWakeUp<State extends OutboxState>(
  store: VersionedStore<State>,
  id: string,
  failedDueAt: EpochMs,
  now: EpochMs,
): Promise<void> {
  const state = await store.load(id);
  if (!state || state.timerDueAt !== failedDueAt) return;
  const timerFailures = (state.timerFailures ?? 0) + 1;
  await saveUnlessOvertaken(store, { ...state, timerFailures, timerDueAt: now + retryDelayMs(timerFailures) }, state);
}

async function saveUnlessOvertaken<State extends OutboxState>(store: VersionedStore<State>, next: State, read: State): Promise<State> {
  try {
    return await store.save(next, read.version);
  } catch (error) {
    if (error instanceof VersionConflictError) return read;
    throw error;
  }
}
