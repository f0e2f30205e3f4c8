import { describe, expect, it } from 'vitest';
import { decideAndSave, type OutboxState, type VersionedStore } from '../../shared/app/decide-and-save.js';
import { OUTBOX_LIMIT_BYTES } from '../../shared/app/outbox-bound.js';
import { publish, type Decision } from '../../shared/domain/effects.js';
import type { BusEvent } from '../../shared/ports/event-bus.js';
import { VersionConflictError } from '../../shared/ports/job-store.js';
import { RecordingBus, RecordingTelemetry, RecordingTimers } from './support/recording-ports.js';

/**
 * README — "An outbox keeps at most 64 KB of the newest events … what it lets
 * go is logged and counted (`OutboxEventsDropped`)". The metric is the only trace an operator has of
 * events that were decided and will never be published.
 */
describe('OutboxEventsDropped counts the events an outbox let go', () => {
  interface Item extends OutboxState {
    notes: number;
  }
  const event = (n: number): BusEvent => ({ detailType: 'Noted', detail: { n, note: 'x'.repeat(Math.floor(OUTBOX_LIMIT_BYTES / 4)) } });
  /** While the bus is down, one decision adds eight events of a quarter of the bound each: four of them cannot be kept. */
  const noteEight = (item: Item): Decision<Item> => ({
    state: { ...item, notes: item.notes + 1 },
    effects: Array.from({ length: 8 }, (_, i) => publish(event(i))),
  });

  /** One decision through a store whose first `conflicts` saves lose to another writer that changed nothing the decision reads. */
  async function decideOnce(conflicts: number) {
    let stored: Item = { version: 1, notes: 0 };
    let left = conflicts;
    const store: VersionedStore<Item> = {
      load: async () => stored,
      save: async (next, expected) => {
        if (left-- > 0) {
          stored = { ...stored, version: stored.version + 1 };
          throw new VersionConflictError('item');
        }
        return (stored = { ...next, version: expected + 1 });
      },
      isFinished: () => false,
      retryWakeUp: (_item, dueAt) => ({ scope: 'job', jobId: 'item', fenceToken: 1, dueAt }),
    };
    const bus = new RecordingBus();
    bus.failNextPublishes(Number.MAX_SAFE_INTEGER);
    const telemetry = new RecordingTelemetry();
    await decideAndSave(store, { timers: new RecordingTimers(), bus, telemetry }, 'item', () => 0, noteEight, () => new Error('missing'));
    return {
      written: stored.notes,
      kept: stored.outbox?.length ?? 0,
      dropLogs: telemetry.logs.filter((log) => log.message.startsWith('outbox full')).length,
      dropMetrics: telemetry.count('OutboxEventsDropped'),
    };
  }

  it('one write that lets several events go counts each of them, not one', async () => {
    // Act
    const { kept, dropMetrics } = await decideOnce(0);
    // Assess
    expect(8 - kept).toBeGreaterThan(1);
    expect(dropMetrics).toBe(8 - kept);
  });

  it('a drop decided on a write that lost its version race (and was decided again) is counted once', async () => {
    // Prepare: the same decision, written at the first try
    const alone = await decideOnce(0);
    // Act: written at the third try, after two lost races
    const afterRaces = await decideOnce(2);
    // Assess: one decision written, the same events let go, the same trace
    expect(afterRaces).toEqual(alone);
  });
});
