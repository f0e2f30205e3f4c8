import type { SimStore } from '../dynamo/sim-store.js';

/** What an invariant check got instead of a read: the items are the very ones it read last time. */
export const UNCHANGED = Symbol('unchanged since the last read');

type ItemKey = { pk: string; sk: string };

/**
 * Lets the invariant checks skip re-reading items that did not change. The in-memory store keeps
 * each version of an item as one object it never changes (`SimStore.storedItem`), so an item whose
 * stored object is the one seen at the last read would read back the same: checking it again finds
 * nothing new. A store that cannot tell (dynalite) is always read.
 */
export class ItemVersions {
  private readonly seen = new Map<string, object>();

  constructor(
    private readonly store: SimStore,
    private readonly table: string,
  ) {}

  /**
   * Calls `read` with the entries whose items may have changed since the last read here (an absent
   * item always may), or answers `UNCHANGED` when none did.
   */
  async read<Entry, Result>(entries: readonly Entry[], keyOf: (entry: Entry) => ItemKey, read: (changed: Entry[]) => Promise<Result>): Promise<Result | typeof UNCHANGED> {
    if (!this.store.storedItem) return read([...entries]);
    const ids = entries.map((entry) => {
      const key = keyOf(entry);
      return `${key.pk}\u0000${key.sk}`;
    });
    // Taken before the read: were an item written meanwhile, it would only be read again next time.
    const stored = entries.map((entry) => this.store.storedItem?.(this.table, keyOf(entry)));
    const changed = entries.filter((_, i) => stored[i] === undefined || this.seen.get(ids[i] as string) !== stored[i]);
    if (changed.length === 0) return UNCHANGED;
    const result = await read(changed);
    stored.forEach((version, i) => {
      if (version !== undefined) this.seen.set(ids[i] as string, version);
    });
    return result;
  }
}
