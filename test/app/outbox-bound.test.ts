import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { decideAndSave, type OutboxState, type VersionedStore } from '../../shared/app/decide-and-save.js';
import { boundOutbox, OUTBOX_LIMIT_BYTES } from '../../shared/app/outbox-bound.js';
import { publish, type Decision } from '../../shared/domain/effects.js';
import type { BusEvent } from '../../shared/ports/event-bus.js';
import { RecordingBus, RecordingTelemetry, RecordingTimers } from './support/recording-ports.js';

const bytes = (events: readonly BusEvent[]) => events.reduce((sum, event) => sum + Buffer.byteLength(JSON.stringify(event), 'utf8'), 0);
const event = (n: number, padding = 0): BusEvent => ({ detailType: 'Noted', detail: { n, note: 'x'.repeat(padding) } });

describe('an outbox never grows past its bound', () => {
  it('keeps the newest events that fit and counts the older ones it dropped (property)', () => {
    fc.assert(
      fc.property(fc.array(fc.nat({ max: 4_000 }), { maxLength: 200 }), fc.integer({ min: 500, max: 20_000 }), (paddings, limit) => {
        // Act
        const events = paddings.map((padding, n) => event(n, padding));
        const { kept, dropped } = boundOutbox(events, limit);
        // Assess: a suffix, within the limit, and one more older event would not have fit
        expect(kept).toEqual(events.slice(dropped));
        expect(bytes(kept)).toBeLessThanOrEqual(limit);
        if (dropped > 0) expect(bytes(events.slice(dropped - 1))).toBeGreaterThan(limit);
      }),
    );
  });

  it('through a bus outage, decisions that keep adding events leave the item within the bound, and say what they dropped', async () => {
    // Prepare: every publish fails; each decision adds a 1 KB event
    interface Item extends OutboxState {
      notes: number;
    }
    let stored: Item = { version: 1, notes: 0 };
    const store: VersionedStore<Item> = {
      load: async () => stored,
      save: async (next, expected) => (stored = { ...next, version: expected + 1 }),
      isFinished: () => false,
      retryWakeUp: (_item, dueAt) => ({ scope: 'job', jobId: 'item', fenceToken: 1, dueAt }),
    };
    const bus = new RecordingBus();
    bus.failNextPublishes(Number.MAX_SAFE_INTEGER);
    const telemetry = new RecordingTelemetry();
    const note = (item: Item): Decision<Item> => ({ state: { ...item, notes: item.notes + 1 }, effects: [publish(event(item.notes, 1_000))] });
    // Act
    for (let i = 0; i < 200; i++) await decideAndSave(store, { timers: new RecordingTimers(), bus, telemetry }, 'item', () => 0, note, () => new Error('missing'));
    // Assess
    expect(bytes(stored.outbox ?? [])).toBeLessThanOrEqual(OUTBOX_LIMIT_BYTES);
    expect(stored.outbox?.at(-1)?.detail['n']).toBe(199);
    expect(telemetry.count('OutboxEventsDropped')).toBeGreaterThan(0);
  });
});
