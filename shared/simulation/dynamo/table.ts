import { itemSize } from '../../domain/stored-size.js';
import { getPath, type Item } from './expression-eval.js';

export interface KeySchema {
  hash: string;
  range?: string;
}

export interface IndexDefinition extends KeySchema {
  name: string;
  /** Attributes an index item carries besides the keys; `undefined` means all of them. */
  include?: readonly string[];
}

/** The pending change of one index entry: becomes visible to index reads at `visibleAt`. */
interface Propagation {
  visibleAt: number;
  tableKey: string;
  hash?: string;
  projected?: Item;
}

const keyString = (item: Item, schema: KeySchema) => `${String(item[schema.hash])}\u0000${schema.range ? String(item[schema.range]) : ''}`;

/** Whether two index entries are equal as JSON (their keys in the same order, each value the same as JSON), mostly without serialising. */
function sameEntry(a: Item, b: Item): boolean {
  if (a === b) return true;
  const keys = Object.keys(a);
  const otherKeys = Object.keys(b);
  if (keys.length !== otherKeys.length || keys.some((key, i) => key !== otherKeys[i])) return JSON.stringify(a) === JSON.stringify(b);
  for (const key of keys) {
    const value = a[key];
    const other = b[key];
    if (value !== other && JSON.stringify(value) !== JSON.stringify(other)) return false;
  }
  return true;
}

const byVisibleAt = (a: Propagation, b: Propagation) => a.visibleAt - b.visibleAt;

/** One secondary index: eventually consistent, it applies each write after a lag (GSIs on AWS do too). */
export class SecondaryIndex {
  private readonly partitions = new Map<string, Map<string, Item>>();
  private readonly pending: Propagation[] = [];
  private readonly lastVisibleAt = new Map<string, number>();
  private readonly where = new Map<string, string>();
  /** Each stored item's entry here: worked out once, as stored items never change. */
  private readonly entries = new WeakMap<Item, Item>();
  /** Whether `pending` may be out of `visibleAt` order (a change was added since it was last sorted). */
  private unsorted = false;
  /** What an entry carries: the table's keys, the index's keys, then `include`; `undefined` when it carries everything. */
  private readonly projected: readonly string[] | undefined;

  constructor(
    readonly definition: IndexDefinition,
    table: KeySchema,
  ) {
    const names = [table.hash, table.range, definition.hash, definition.range, ...(definition.include ?? [])];
    this.projected = definition.include ? names.filter((name): name is string => name !== undefined) : undefined;
  }

  /** Records the new version of a table item (or its deletion) for index readers from `visibleAt` on. */
  propagate(tableKey: string, after: Item | undefined, visibleAt: number): void {
    // A later write to one item never becomes visible before an earlier one.
    const at = Math.max(visibleAt, this.lastVisibleAt.get(tableKey) ?? 0);
    this.lastVisibleAt.set(tableKey, at);
    const inIndex = after && after[this.definition.hash] !== undefined && (!this.definition.range || after[this.definition.range] !== undefined);
    this.unsorted = true;
    this.pending.push({
      visibleAt: at,
      tableKey,
      ...(inIndex ? { hash: String(after[this.definition.hash]), projected: this.entry(after) } : {}),
    });
  }

  /**
   * The write units writing `after` over `before` costs this index: none when its entry is unchanged,
   * else a unit per started KB of the entry (the larger of the two when it changes in place; the old
   * one's delete and the new one's put when its keys move), as DynamoDB bills a GSI write.
   */
  writeUnits(before: Item | undefined, after: Item | undefined): number {
    const had = before !== undefined && before[this.definition.hash] !== undefined;
    const has = after !== undefined && after[this.definition.hash] !== undefined;
    if (had && has) {
      const keysMoved = keyString(before, this.definition) !== keyString(after, this.definition);
      if (keysMoved) return this.entryUnits(before) + this.entryUnits(after);
      return sameEntry(this.entry(before), this.entry(after)) ? 0 : Math.max(this.entryUnits(before), this.entryUnits(after));
    }
    if (had) return this.entryUnits(before);
    return has ? this.entryUnits(after) : 0;
  }

  private entryUnits(item: Item): number {
    return Math.max(1, Math.ceil(itemSize(this.entry(item)) / 1024));
  }

  /** The partition as an index reader sees it at `now`. */
  partition(hash: string, now: number): Item[] {
    this.catchUp(now);
    return [...(this.partitions.get(hash)?.values() ?? [])];
  }

  private catchUp(now: number): void {
    if (this.pending.length === 0) return;
    // Stable: changes due at the same moment stay in the order they were made (sorting again changes nothing).
    if (this.unsorted) this.pending.sort(byVisibleAt);
    this.unsorted = false;
    let applied = 0;
    for (const change of this.pending) {
      if (change.visibleAt > now) break;
      applied++;
      const previous = this.where.get(change.tableKey);
      if (previous !== undefined) this.partitions.get(previous)?.delete(change.tableKey);
      if (change.hash === undefined || !change.projected) {
        this.where.delete(change.tableKey);
        continue;
      }
      let partition = this.partitions.get(change.hash);
      if (!partition) this.partitions.set(change.hash, (partition = new Map()));
      partition.set(change.tableKey, change.projected);
      this.where.set(change.tableKey, change.hash);
    }
    this.pending.splice(0, applied);
  }

  private entry(item: Item): Item {
    let entry = this.entries.get(item);
    if (!entry) this.entries.set(item, (entry = this.project(item)));
    return entry;
  }

  private project(item: Item): Item {
    if (!this.projected) return item;
    const projected: Item = {};
    for (const name of this.projected) if (item[name] !== undefined) projected[name] = item[name];
    return projected;
  }
}

/** One table: items by partition, and its secondary indexes. */
export class Table {
  private readonly partitions = new Map<string, Map<string, Item>>();
  readonly indexes = new Map<string, SecondaryIndex>();

  constructor(
    readonly name: string,
    readonly key: KeySchema,
    indexes: readonly IndexDefinition[],
  ) {
    for (const index of indexes) this.indexes.set(index.name, new SecondaryIndex(index, key));
  }

  /** Where an item lives: its partition, and there its range key as text. */
  private locate(key: Item): { hash: string; range: string } {
    const hash = key[this.key.hash];
    const range = this.key.range ? key[this.key.range] : '';
    if (hash === undefined || range === undefined) {
      throw new Error(`The provided key element does not match the schema of table ${this.name}`);
    }
    return { hash: String(hash), range: String(range) };
  }

  get(key: Item): Item | undefined {
    const { hash, range } = this.locate(key);
    return this.partitions.get(hash)?.get(range);
  }

  put(key: Item, item: Item | undefined): void {
    const { hash, range } = this.locate(key);
    let partition = this.partitions.get(hash);
    if (!item) {
      partition?.delete(range);
      return;
    }
    if (!partition) this.partitions.set(hash, (partition = new Map()));
    partition.set(range, item);
  }

  partition(hash: string): Item[] {
    return [...(this.partitions.get(hash)?.values() ?? [])];
  }

  *items(): Iterable<Item> {
    for (const partition of this.partitions.values()) yield* partition.values();
  }

  tableKeyOf(item: Item): string {
    return keyString(item, this.key);
  }

  keyAttributes(item: Item, schema: KeySchema = this.key): Item {
    const key: Item = { [schema.hash]: getPath(item, [schema.hash]) };
    if (schema.range) key[schema.range] = item[schema.range];
    return key;
  }
}
