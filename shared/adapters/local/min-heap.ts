/** A binary min-heap ordered by `key`, then by `tieBreak` when given (the simulator needs a stable order). */
export class MinHeap<T> {
  private readonly items: T[] = [];
  constructor(
    private readonly key: (item: T) => number,
    private readonly tieBreak?: (item: T) => number,
  ) {}

  private less(a: T, b: T): boolean {
    const ka = this.key(a);
    const kb = this.key(b);
    return ka < kb || (ka === kb && this.tieBreak !== undefined && this.tieBreak(a) < this.tieBreak(b));
  }

  get size(): number {
    return this.items.length;
  }

  peek(): T | undefined {
    return this.items[0];
  }

  push(item: T): void {
    const items = this.items;
    items.push(item);
    let i = items.length - 1;
    while (i > 0) {
      const parent = (i - 1) >> 1;
      if (!this.less(items[i] as T, items[parent] as T)) break;
      [items[parent], items[i]] = [items[i] as T, items[parent] as T];
      i = parent;
    }
  }

  pop(): T | undefined {
    const items = this.items;
    const top = items[0];
    const last = items.pop();
    if (items.length === 0 || last === undefined) return top;
    items[0] = last;
    let i = 0;
    for (;;) {
      const left = 2 * i + 1;
      const right = left + 1;
      let smallest = i;
      if (left < items.length && this.less(items[left] as T, items[smallest] as T)) smallest = left;
      if (right < items.length && this.less(items[right] as T, items[smallest] as T)) smallest = right;
      if (smallest === i) return top;
      [items[smallest], items[i]] = [items[i] as T, items[smallest] as T];
      i = smallest;
    }
  }
}
