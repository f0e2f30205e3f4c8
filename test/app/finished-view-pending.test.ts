import { describe, expect, it } from 'vitest';
import { decideAndSave, OUTBOX_RETRY_MS, type OutboxState, type VersionedStore } from '../../shared/app/decide-and-save.js';
import { publish, type Decision } from '../../shared/domain/effects.js';
import { VersionConflictError } from '../../shared/ports/job-store.js';
import { RecordingBus, RecordingTelemetry, RecordingTimers } from './support/recording-ports.js';

interface Item extends OutboxState {
  status: 'open' | 'done';
  notes: number;
}

/** A versioned store in memory whose views can be made to fail; it records every view it wrote. */
class ItemStore implements VersionedStore<Item> {
  item: Item = { version: 1, status: 'open', notes: 0 };
  viewFailures = 0;
  readonly rowsWritten: Array<Item['status']> = [];

  load = async () => this.item;
  save = async (next: Item, expectedVersion: number) => {
    if (expectedVersion !== this.item.version) throw new VersionConflictError('item');
    this.item = { ...next, version: expectedVersion + 1 };
    return this.item;
  };
  isFinished = (item: Item) => item.status === 'done';
  retryWakeUp = (_item: Item, dueAt: number) => ({ scope: 'job' as const, jobId: 'item', fenceToken: 1, dueAt });
  private view(item: Item): Promise<boolean> {
    if (this.viewFailures > 0) {
      this.viewFailures--;
      return Promise.resolve(false);
    }
    this.rowsWritten.push(item.status);
    return Promise.resolve(true);
  }
  recordHistory = async (before: Item, after: Item) => (before.status === after.status ? true : this.view(after));
  rewriteFinishedView = async (item: Item) => this.view(item);
}

const NOW = 1_000_000;
const ports = (bus = new RecordingBus()) => ({ timers: new RecordingTimers(), bus, telemetry: new RecordingTelemetry() });
const finish = (item: Item): Decision<Item> => ({ state: { ...item, status: 'done' }, effects: [] });
const finishWithEvent = (item: Item): Decision<Item> => ({ state: { ...item, status: 'done' }, effects: [publish({ detailType: 'ItemDone', detail: {} })] });
const addNote = (item: Item): Decision<Item> => ({ state: { ...item, notes: item.notes + 1 }, effects: [] });
const run = (store: ItemStore, decide: (item: Item) => Decision<Item>) => decideAndSave(store, ports(), 'item', () => NOW, decide, () => new Error('missing'));

describe("a finished item's view is written before its pending mark is cleared", () => {
  it('the decision that finishes an item marks it in its own write and clears the mark once its view is written', async () => {
    // Prepare
    const store = new ItemStore();
    const saved: Item[] = [];
    const save = store.save;
    store.save = async (next, expected) => (saved.push(next), save(next, expected));
    // Act
    await run(store, finish);
    // Assess
    expect(saved.map((item) => [item.status, item.viewPending, item.timerDueAt])).toEqual([
      ['done', true, NOW + OUTBOX_RETRY_MS],
      ['done', undefined, undefined],
    ]);
    expect(store.rowsWritten).toEqual(['done']);
  });

  it('a view that fails keeps the mark and a retry wake-up; a later change to the finished item writes the view before clearing it', async () => {
    // Prepare: the finishing decision's view and the immediate second try both fail
    const store = new ItemStore();
    store.viewFailures = 2;
    await run(store, finish);
    const pending = store.item;
    // Act: a decision that changes the finished item, though not what its view shows
    await run(store, addNote);
    // Assess
    expect(pending).toMatchObject({ status: 'done', viewPending: true });
    expect(pending.timerDueAt).toBeGreaterThan(NOW);
    expect(store.rowsWritten).toEqual(['done']);
    expect(store.item).toMatchObject({ status: 'done', notes: 1 });
    expect(store.item.viewPending).toBeUndefined();
    expect(store.item.timerDueAt).toBeUndefined();
  });

  it('a store without views marks nothing: an item that finishes with nothing to publish is written once', async () => {
    // Prepare
    const store = new ItemStore();
    const { recordHistory: _record, rewriteFinishedView: _rewrite, ...withoutViews } = store;
    let writes = 0;
    const plain: VersionedStore<Item> = { ...withoutViews, save: (next, expected) => (writes++, store.save(next, expected)) };
    // Act
    await decideAndSave(plain, ports(), 'item', () => NOW, finish, () => new Error('missing'));
    // Assess
    expect(writes).toBe(1);
    expect(store.item.viewPending).toBeUndefined();
    expect(store.item.timerDueAt).toBeUndefined();
  });

  it('a finish whose view was written but whose publish failed keeps only its outbox: the retry publishes without writing the view again', async () => {
    // Prepare
    const store = new ItemStore();
    const bus = new RecordingBus();
    bus.failNextPublishes(1);
    await decideAndSave(store, ports(bus), 'item', () => NOW, finishWithEvent, () => new Error('missing'));
    const deferred = store.item;
    // Act: the retry wake-up's flush (a decision that changes nothing)
    await decideAndSave(store, ports(bus), 'item', () => NOW + OUTBOX_RETRY_MS, (item) => ({ state: item, effects: [] }), () => new Error('missing'));
    // Assess
    expect(deferred.outbox).toHaveLength(1);
    expect(deferred.viewPending).toBeUndefined();
    expect(bus.ofType('ItemDone')).toHaveLength(1);
    expect(store.rowsWritten).toEqual(['done']);
    expect(store.item.outbox).toBeUndefined();
  });
});
