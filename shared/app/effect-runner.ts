import type { Effect } from '../domain/effects.js';
import type { BusEvent, EventBus } from '../ports/event-bus.js';
import type { Telemetry } from '../ports/telemetry.js';
import type { Timers } from '../ports/timers.js';

export interface EffectPorts {
  timers: Timers;
  bus: EventBus;
  telemetry: Telemetry;
  /** Waits before the next attempt after a lost conditional write (`contention-backoff.ts`); absent, it retries at once. */
  backoff?: (attempt: number) => Promise<void>;
}

export const publishedEvents = (effects: readonly Effect[]): BusEvent[] =>
  effects.flatMap((effect) => (effect.type === 'Publish' ? [effect.event] : []));

/** Events that must survive a crash between the state write and the publish: they go through the outbox. */
export const outboxEvents = (effects: readonly Effect[]): BusEvent[] =>
  effects.flatMap((effect) => (effect.type === 'Publish' && !effect.resent ? [effect.event] : []));

/** Timer withdrawals under way. `settled` never rejects: a failed one is logged and counted. */
export interface Withdrawals {
  settled: Promise<void>;
}

/**
 * Arms timers and counts metrics, in order, and starts withdrawing the timers the effects disarm
 * without waiting for them: the caller publishes meanwhile, and awaits `settled` before it returns
 * (a Lambda frozen with a call in flight would finish it in a later invocation, if ever). An arm
 * that fails fails the call: its wake-up must come, and only its index entry would bring it.
 */
export async function runTimersAndMetrics(ports: EffectPorts, effects: readonly Effect[]): Promise<Withdrawals> {
  const withdrawals: Promise<void>[] = [];
  const settled = async () => void (await Promise.all(withdrawals));
  try {
    for (const effect of effects) {
      if (effect.type === 'ArmTimer') await ports.timers.arm(effect.timer);
      else if (effect.type === 'DisarmTimer') withdrawals.push(withdrawTimer(ports, effect));
      else if (effect.type === 'Metric') ports.telemetry.metric(effect.name, effect.dimensions);
    }
  } catch (error) {
    await settled();
    throw error;
  }
  return { settled: settled() };
}

/** Runs timer and metric effects, then publishes events, the publish not waiting for withdrawals. Each effect is idempotent. */
export async function runEffects(ports: EffectPorts, effects: readonly Effect[]): Promise<void> {
  const { settled } = await runTimersAndMetrics(ports, effects);
  try {
    const events = publishedEvents(effects);
    if (events.length > 0) await ports.bus.publish(events);
  } finally {
    await settled;
  }
}

/**
 * Withdrawing a timer is best effort: a wake-up left armed is dropped by its lazy checks when it
 * comes (already terminal, superseded, stale fence), so a failure costs that one wake-up, never the
 * decision already stored. Scheduler's DeleteSchedule has a rate quota of its own, which a burst of
 * finishing jobs can meet: the failure is logged and counted (`TimerDisarmFailed`), not thrown.
 */
async function withdrawTimer(ports: EffectPorts, effect: Extract<Effect, { type: 'DisarmTimer' }>): Promise<void> {
  try {
    await ports.timers.disarm(effect.timer, effect.armedAtMostMsAhead);
  } catch (error) {
    ports.telemetry.warn('timer not withdrawn; its wake-up is dropped when it comes', { ...effect.timer, error: String(error) });
    ports.telemetry.metric('TimerDisarmFailed', { scope: effect.timer.scope });
  }
}
