/**
 * The last `capacity` items of an unbounded stream, plus how many of each kind went by in all. Memory
 * stays bounded however long the local cloud runs; counts stay exact.
 */
export class RecentWindow<T> {
  private readonly ring: T[] = [];
  private next = 0;
  private readonly totals = new Map<string, number>();

  constructor(
    readonly capacity: number,
    private readonly kindOf: (item: T) => string,
  ) {
    if (!Number.isInteger(capacity) || capacity < 1) throw new RangeError(`capacity must be a positive integer, got ${capacity}`);
  }

  add(item: T): void {
    const kind = this.kindOf(item);
    this.totals.set(kind, (this.totals.get(kind) ?? 0) + 1);
    if (this.ring.length < this.capacity) this.ring.push(item);
    else this.ring[this.next] = item;
    this.next = (this.next + 1) % this.capacity;
  }

  /** The retained items, oldest first. */
  items(): T[] {
    return this.ring.length < this.capacity ? [...this.ring] : [...this.ring.slice(this.next), ...this.ring.slice(0, this.next)];
  }

  /** How many items of each kind were ever added, including those no longer retained. */
  counts(): Record<string, number> {
    return Object.fromEntries(this.totals);
  }
}
