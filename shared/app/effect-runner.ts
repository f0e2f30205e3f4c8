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

/** Runs timer and metric effects, then publishes events. Each effect is idempotent. */
export async function runEffects(ports: EffectPorts, effects: readonly Effect[]): Promise<void> {
  for (const effect of effects) {
    if (effect.type === 'ArmTimer') await ports.timers.arm(effect.timer);
    else if (effect.type === 'DisarmTimer') await ports.timers.disarm(effect.scope, effect.jobId);
    else if (effect.type === 'Metric') ports.telemetry.metric(effect.name, effect.dimensions);
  }
  const events = publishedEvents(effects);
  if (events.length > 0) await ports.bus.publish(events);
}
