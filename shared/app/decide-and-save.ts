import type { Decision, Effect } from '../domain/effects.js';
import type { EpochMs } from '../domain/time.js';
import type { BusEvent } from '../ports/event-bus.js';
import { VersionConflictError } from '../ports/job-store.js';
import { outboxEvents, runEffects, type EffectPorts } from './effect-runner.js';

/** A state item with optimistic concurrency, a durable wake-up and a transactional outbox. */
export interface OutboxState {
  version: number;
  timerDueAt?: EpochMs;
  outbox?: BusEvent[];
}

export interface VersionedStore<State extends OutboxState> {
  load(id: string): Promise<State | undefined>;
  save(state: State, expectedVersion: number): Promise<State>;
  /** A finished item keeps a wake-up only while its outbox is not yet published. */
  isFinished(state: State): boolean;
  /** Called once per saved decision with the state before and after it (the decision history). */
  recordHistory?: (before: State, after: State, at: EpochMs) => Promise<void>;
}

const MAX_ATTEMPTS = 8;
/** How soon the sweep retries publishing a finished item's outbox after a crash. */
export const OUTBOX_RETRY_MS = 30_000;

/**
 * Load, decide, write once (conditional on the version read), then act. A version conflict means
 * someone else wrote first: decide again on what they wrote. Events decided together with a state
 * change are stored in the item's outbox by the same write and published after it, so a crash in
 * between loses none; the next wake-up (or the sweep) publishes them.
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
      await runEffects(ports, decision.effects);
      return { state: current, decision };
    }
    let stored: State;
    try {
      stored = await store.save(withOutbox(store, decision.state, decision.effects, now()), current.version);
    } catch (error) {
      if (error instanceof VersionConflictError && attempt < MAX_ATTEMPTS) continue;
      throw error;
    }
    // The history is a view beside the decision: recorded alongside the effects, never delaying them.
    await Promise.all([
      store.recordHistory?.(current, stored, now()),
      runEffects(ports, decision.effects.filter((effect) => effect.type !== 'Publish' || effect.resent)),
    ]);
    return { state: await flushOutbox(store, ports, stored), decision };
  }
}

function withOutbox<State extends OutboxState>(store: VersionedStore<State>, state: State, effects: readonly Effect[], now: EpochMs): State {
  const events = outboxEvents(effects);
  if (events.length === 0) return state;
  const outbox = [...(state.outbox ?? []), ...events];
  return store.isFinished(state) ? { ...state, outbox, timerDueAt: now + OUTBOX_RETRY_MS } : { ...state, outbox };
}

/** Publishes the outbox and clears it. If another write got in first, it carries the outbox on. */
export async function flushOutbox<State extends OutboxState>(store: VersionedStore<State>, ports: EffectPorts, state: State): Promise<State> {
  if (!state.outbox || state.outbox.length === 0) return state;
  await ports.bus.publish(state.outbox);
  const { outbox: _published, ...rest } = state;
  let cleared = rest as State;
  if (store.isFinished(cleared)) {
    const { timerDueAt: _retry, ...withoutTimer } = cleared;
    cleared = withoutTimer as State;
  }
  try {
    return await store.save(cleared, state.version);
  } catch (error) {
    if (error instanceof VersionConflictError) return state;
    throw error;
  }
}
