import type { Decision, Effect } from '../domain/effects.js';
import type { EpochMs } from '../domain/time.js';
import { EventPublishError, type BusEvent } from '../ports/event-bus.js';
import { VersionConflictError } from '../ports/job-store.js';
import type { TimerRequest } from '../ports/timers.js';
import { outboxEvents, publishedEvents, runTimersAndMetrics, type EffectPorts, type Withdrawals } from './effect-runner.js';
import { boundOutbox, outboxRoom } from './outbox-bound.js';
import { retryDelayMs, RETRY_BASE_MS } from './retry-backoff.js';

/**
 * How soon an outbox is first retried after its publish failed. The retry is armed as a wake-up of
 * its own (SQS), so an outage's retries do not queue up in the sweep; its index entry stays as the
 * backstop. A decision's write sets it too, unarmed: it is only the backstop for a crash before the
 * publish, and arming it there would cost a message for every finished item.
 */
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
  /** Sweeps in a row that could not fire this wake-up (the sweep backs it off); a decision's write clears it. */
  timerFailures?: number;
}

export interface VersionedStore<State extends OutboxState> {
  load(id: string): Promise<State | undefined>;
  save(state: State, expectedVersion: number): Promise<State>;
  /**
   * A finished item keeps a wake-up only while its outbox is not yet published or its view not yet
   * written, or while it owes one of its own (`finishedWakeUpAt`).
   */
  isFinished(state: State): boolean;
  /** When a finished item must still wake up on its own (a region's cancel the gate has not answered); absent: never. */
  finishedWakeUpAt?(state: State): EpochMs | undefined;
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
  /** The wake-up that retries this item's outbox at `dueAt`: armed when a publish fails. */
  retryWakeUp(state: State, dueAt: EpochMs): TimerRequest;
}

/** Attempts at one decision when others keep writing first; then the caller answers 503 `busy`, having changed nothing. */
export const MAX_DECIDE_ATTEMPTS = 12;

/**
 * A decision made again once its write is stored, before any of its effects run: asked with the state
 * as stored, it answers the decision to make instead when the write was decided on something its
 * condition could not cover (another item, read before it) that has changed meanwhile, or nothing.
 */
export type Reconsider<State> = (stored: State) => Promise<((state: State) => Decision<State>) | undefined>;

/**
 * Load, decide, write once (conditional on the version read), then act. A version conflict means
 * someone else wrote first: decide again on what they wrote. Events decided together with a state
 * change are stored in the item's outbox by the same write and published after it, so a crash in
 * between loses none; the next wake-up (or the sweep) publishes them. Deciding and writing never
 * wait on the bus: a failed publish leaves the outbox with a backed-off retry wake-up. Nor on a timer's
 * withdrawal, which is best effort and runs beside the publish (`effect-runner.ts`).
 *
 * `reconsider` is asked once, after the write (or, when nothing was written, if a conflict had the
 * state read again after the caller's read). The decision it answers is made on the state the write
 * was decided on and written over that write if nobody wrote since, so none of the first write's
 * effects ever runs; if somebody did, the first write stands (its effects run, and whoever wrote next
 * carries its outbox on) and the new decision is made on what is stored now.
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
  reconsider?: Reconsider<State>,
): Promise<{ state: State; decision: Decision<State> }> {
  let deciding = decide;
  let reconsidering = reconsider;
  let read = alreadyLoaded;
  for (let attempt = 1; ; attempt++) {
    const current = read ?? (await store.load(id));
    read = undefined;
    if (!current) throw onMissing();
    const decision = deciding(current);
    if (decision.state === current) {
      const instead = reconsidering && current !== alreadyLoaded ? await reconsidering(current) : undefined;
      reconsidering = undefined;
      if (instead) {
        [deciding, read] = [instead, current];
        continue;
      }
      // Nothing to write, so nothing goes through the outbox: a reply lost to an outage is asked for again.
      const withdrawals = await runSideEffects(ports, decision.effects, () => true);
      return { state: await afterWithdrawals(withdrawals, flushOutbox(store, ports, current, now())), decision };
    }
    let written: Written<State>;
    try {
      written = await write(store, current, current.version, decision, now());
    } catch (error) {
      if (!(error instanceof VersionConflictError) || attempt >= MAX_DECIDE_ATTEMPTS) throw error;
      await ports.backoff?.(attempt);
      continue;
    }
    const instead = reconsidering && (await reconsidering(written.state));
    reconsidering = undefined;
    if (instead) {
      deciding = instead;
      const replaced = await writeOver(store, current, written, instead(current), now());
      if (!replaced) {
        await (await settleWrite(store, ports, current, written, now)).withdrawals.settled;
        continue;
      }
      written = replaced;
    }
    const { withdrawals, viewWritten } = await settleWrite(store, ports, current, written, now);
    return { state: await afterWithdrawals(withdrawals, flushOutbox(store, ports, written.state, now(), viewWritten)), decision: written.decision };
  }
}

/** A decision as stored: the state written, and how many of the oldest outbox events its write dropped. */
interface Written<State extends OutboxState> {
  state: State;
  decision: Decision<State>;
  dropped: number;
}

async function write<State extends OutboxState>(store: VersionedStore<State>, before: State, expectedVersion: number, decision: Decision<State>, now: EpochMs): Promise<Written<State>> {
  const { timerFailures: _cleared, ...decided } = decision.state;
  const next = withOutbox(store, before, decided as State, decision.effects, now);
  return { state: await store.save(next.state, expectedVersion), decision, dropped: next.dropped };
}

/** A decision made on `before` again, written over `first` (decided on `before` too); undefined if another write came between. */
async function writeOver<State extends OutboxState>(store: VersionedStore<State>, before: State, first: Written<State>, decision: Decision<State>, now: EpochMs) {
  try {
    return await write(store, before, first.state.version, decision, now);
  } catch (error) {
    if (error instanceof VersionConflictError) return undefined;
    throw error;
  }
}

/** A stored decision's history and side effects; its outbox is left to the caller. */
async function settleWrite<State extends OutboxState>(store: VersionedStore<State>, ports: EffectPorts, before: State, written: Written<State>, now: () => EpochMs) {
  // Counted once the write that lets them go is stored, not for each decision a lost race repeats.
  if (written.dropped > 0) {
    ports.telemetry.error('outbox full while the bus is down: its oldest events dropped', { dropped: written.dropped, kept: written.state.outbox?.length ?? 0 });
    for (let i = 0; i < written.dropped; i++) ports.telemetry.metric('OutboxEventsDropped');
  }
  // The history is a view beside the decision: recorded alongside the effects, never delaying them.
  const finishing = store.isFinished(written.state) && !store.isFinished(before);
  const [recorded, withdrawals] = await Promise.all([
    store.recordHistory ? store.recordHistory(before, written.state, now(), finishing) : true,
    runSideEffects(ports, written.decision.effects, (effect) => effect.resent === true),
  ]);
  // The history records what changed: only the decision that finished the item wrote its final row.
  return { withdrawals, viewWritten: recorded && !store.isFinished(before) };
}

/** The outbox goes out while timers are being withdrawn; the call ends once both have. */
async function afterWithdrawals<T>(withdrawals: Withdrawals, flushed: Promise<T>): Promise<T> {
  try {
    return await flushed;
  } finally {
    await withdrawals.settled;
  }
}

type PublishEffect = Extract<Effect, { type: 'Publish' }>;

/**
 * Timers and metrics, then the events that skip the outbox (`direct`): re-sent ones (periodic reports,
 * the gate's decisions) and replies decided without a write. Each is sent again until answered, so a
 * bus outage costs one of them, never the decision. Timers being withdrawn are left under way.
 */
async function runSideEffects(ports: EffectPorts, effects: readonly Effect[], direct: (effect: PublishEffect) => boolean): Promise<Withdrawals> {
  const withdrawals = await runTimersAndMetrics(ports, effects);
  const events = publishedEvents(effects.filter((effect) => effect.type === 'Publish' && direct(effect)));
  if (events.length === 0) return withdrawals;
  try {
    await ports.bus.publish(events);
  } catch (error) {
    ports.telemetry.warn('events not published; they are sent again until answered', { events: events.length, error: String(error) });
  }
  return withdrawals;
}

function withOutbox<State extends OutboxState>(
  store: VersionedStore<State>,
  before: State,
  state: State,
  effects: readonly Effect[],
  now: EpochMs,
): { state: State; dropped: number } {
  const events = outboxEvents(effects);
  const finishing = store.rewriteFinishedView !== undefined && store.isFinished(state) && !store.isFinished(before);
  if (events.length === 0 && !finishing) {
    // An outbox left by an outage rides on every write: what the write adds (a split's subtasks) may leave it less room.
    if (!state.outbox?.length) return { state: withRetryBackstop(state, now), dropped: 0 };
    const { kept, dropped } = boundedOutbox(store, state.outbox, outboxRoom(state), now);
    return { state: withRetryBackstop({ ...state, outbox: kept }, now), dropped };
  }
  const bounded = events.length > 0 ? boundedOutbox(store, [...(state.outbox ?? []), ...events], outboxRoom(state), now) : undefined;
  const pending: State = {
    ...state,
    ...(bounded ? { outbox: bounded.kept } : {}),
    ...(finishing ? { viewPending: true } : {}),
  };
  return { state: store.isFinished(state) ? { ...pending, timerDueAt: Math.min(now + OUTBOX_RETRY_MS, store.finishedWakeUpAt?.(state) ?? Infinity) } : withRetryBackstop(pending, now), dropped: bounded?.dropped ?? 0 };
}

/**
 * What still waits for the bus (or for its view) keeps a wake-up in the write that keeps it: its index
 * entry is its only backstop. A decision that takes the item's own wake-up away (an idle pool item
 * needs none) would otherwise leave it to the publish's retry, written after the publish fails, and a
 * Lambda cut off in between left events that nothing would ever publish.
 */
const withRetryBackstop = <State extends OutboxState>(state: State, now: EpochMs): State =>
  hasPending(state) && state.timerDueAt === undefined ? { ...state, timerDueAt: now + OUTBOX_RETRY_MS } : state;

const boundedOutbox = <State extends OutboxState>(store: VersionedStore<State>, events: BusEvent[], roomBytes: number, now: EpochMs) =>
  boundOutbox(store.compactOutbox ? store.compactOutbox(events, now) : events, roomBytes);

/** Whether an item still owes a publish or its view (and so keeps its retry wake-up once finished). */
export const hasPending = (state: OutboxState): boolean => (state.outbox?.length ?? 0) > 0 || state.viewPending === true;

/**
 * Publishes the outbox and clears it. If another write got in first, it carries the outbox on. If the
 * bus fails, the outbox stays and the item's wake-up moves to a backed-off retry (never later than
 * the wake-up it already had), armed so that it comes back on its own. A finished item's pending view
 * is written first unless the decision just wrote it (`viewWritten`); if that fails the outbox stays
 * the same way.
 *
 * `claimFirst` (the sweep, for a finished item): the retry is written before the publish instead of
 * after it fails, so a sweep cut off while the bus hangs does not find the same entries first next
 * minute. It costs a write only when the publish then succeeds, and the sweep fires such an entry
 * only when its own retry was lost.
 */
export async function flushOutbox<State extends OutboxState>(
  store: VersionedStore<State>,
  ports: EffectPorts,
  state: State,
  now: EpochMs,
  viewWritten = false,
  claimFirst = false,
): Promise<State> {
  if (!hasPending(state)) return state;
  let claimed: State | undefined;
  if (claimFirst && store.isFinished(state)) {
    claimed = await deferOutbox(store, ports, state, now, 'outbox retried by the sweep', undefined, state, false);
    // Overtaken: whoever wrote first carries the outbox on.
    if (claimed === state) return state;
    state = claimed;
  }
  const { unsent, error } = await publishOutbox(ports, state.outbox ?? []);
  if (unsent.length > 0) {
    // Claimed and nothing went out: the retry is already written; it only needs its wake-up.
    if (claimed && unsent.length === (state.outbox ?? []).length && !viewWritten) {
      ports.telemetry.warn('outbox not published; retrying later', { events: unsent.length, outboxFailures: state.outboxFailures, retryAt: state.timerDueAt, error: String(error) });
      if (state.timerDueAt !== undefined) await armRetry(store, ports, state, state.timerDueAt);
      return state;
    }
    // What went out is not sent again, and a view this decision wrote need not be written again by the retry.
    const left = { ...state, outbox: [...unsent] };
    const { viewPending: _written, ...rest } = left;
    return deferOutbox(store, ports, viewWritten ? (rest as State) : left, now, 'outbox not published', error, state);
  }
  if (!viewWritten && state.viewPending === true && store.rewriteFinishedView && !(await store.rewriteFinishedView(state))) {
    return deferOutbox(store, ports, state, now, "finished item's view not written", undefined);
  }
  const { outbox: _published, outboxFailures: _failures, viewPending: _viewWritten, ...rest } = state;
  let cleared = rest as State;
  if (store.isFinished(cleared)) {
    const { timerDueAt: _retry, ...withoutTimer } = cleared;
    const owed = store.finishedWakeUpAt?.(cleared);
    cleared = (owed === undefined ? withoutTimer : { ...withoutTimer, timerDueAt: owed }) as State;
  }
  return saveUnlessOvertaken(store, cleared, state);
}

/**
 * Publishes the outbox; returns what did not go out and may on a later try. An event the bus refuses
 * for good (EventBridge's non-retryable entry errors: a policy that does not allow its type, a detail
 * it cannot take) would be sent again forever: it is logged whole, counted (`EventsRefused`, which
 * alarms) and let go.
 */
async function publishOutbox(ports: EffectPorts, outbox: readonly BusEvent[]): Promise<{ unsent: readonly BusEvent[]; error?: unknown }> {
  if (outbox.length === 0) return { unsent: [] };
  try {
    await ports.bus.publish(outbox);
    return { unsent: [] };
  } catch (error) {
    if (!(error instanceof EventPublishError)) return { unsent: outbox, error };
    if (error.refused.length > 0) {
      ports.telemetry.error('events refused by the bus for good: let go', { refused: error.refused.map(({ event, reason }) => ({ reason, ...event })) });
      for (const _refused of error.refused) ports.telemetry.metric('EventsRefused');
    }
    return { unsent: error.unsent, error };
  }
}

async function deferOutbox<State extends OutboxState>(
  store: VersionedStore<State>,
  ports: EffectPorts,
  state: State,
  now: EpochMs,
  what: string,
  error: unknown,
  /** The state as stored, when `state` already differs from it (its outbox cut to what is left). */
  stored: State = state,
  /** Arm the retry's wake-up (false: the caller publishes next, and arms only if that fails). */
  arm = true,
): Promise<State> {
  const outboxFailures = (state.outboxFailures ?? 0) + 1;
  const retryAt = now + retryDelayMs(outboxFailures);
  // A running item's own wake-up, if sooner, stays: it publishes the outbox too, and an overdue one
  // still owes a decision that must not wait for the retry.
  const keepsEarlierWakeUp = !store.isFinished(state) && state.timerDueAt !== undefined && state.timerDueAt < retryAt;
  const timerDueAt = keepsEarlierWakeUp ? (state.timerDueAt as EpochMs) : retryAt;
  if (arm) ports.telemetry.warn(`${what}; retrying later`, { events: state.outbox?.length ?? 0, outboxFailures, retryAt, ...(error !== undefined ? { error: String(error) } : {}) });
  const saved = await saveUnlessOvertaken(store, { ...state, outboxFailures, timerDueAt }, stored);
  // Armed only once written, and only when it is the item's next wake-up (an earlier one is armed already).
  if (arm && saved !== stored && !keepsEarlierWakeUp) await armRetry(store, ports, saved, retryAt);
  return saved;
}

/**
 * Arms the outbox's retry (an SQS message): the sweep is left for wake-ups that are truly lost. If
 * arming fails too (SQS in the same outage), the index entry written with the retry is the backstop.
 */
async function armRetry<State extends OutboxState>(store: VersionedStore<State>, ports: EffectPorts, state: State, dueAt: EpochMs): Promise<void> {
  try {
    await ports.timers.arm(store.retryWakeUp(state, dueAt));
  } catch (error) {
    ports.telemetry.warn("outbox retry's wake-up not armed; the sweep fires it", { retryAt: dueAt, error: String(error) });
  }
}

/**
 * A wake-up the sweep could not fire moves to `dueAfter(failures)` (the sweep's rule), counting the
 * sweeps in a row that failed it: a failing item must not keep its place at the head of the sweep.
 * Nothing moves if the item has another wake-up by now.
 */
export async function backOffFailedWakeUp<State extends OutboxState>(
  store: VersionedStore<State>,
  id: string,
  failedDueAt: EpochMs,
  dueAfter: (timerFailures: number) => EpochMs,
): Promise<void> {
  const state = await store.load(id);
  if (!state || state.timerDueAt !== failedDueAt) return;
  const timerFailures = (state.timerFailures ?? 0) + 1;
  await saveUnlessOvertaken(store, { ...state, timerFailures, timerDueAt: dueAfter(timerFailures) }, state);
}

async function saveUnlessOvertaken<State extends OutboxState>(store: VersionedStore<State>, next: State, read: State): Promise<State> {
  try {
    return await store.save(next, read.version);
  } catch (error) {
    if (error instanceof VersionConflictError) return read;
    throw error;
  }
}
