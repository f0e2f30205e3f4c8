/** A binary min-heap ordered by `key`. */
export class MinHeap<T> {
  private readonly items: T[] = [];
  constructor(private readonly key: (item: T) => number) {}

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
      if (this.key(items[parent] as T) <= this.key(items[i] as T)) break;
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
      if (left < items.length && this.key(items[left] as T) < this.key(items[smallest] as T)) smallest = left;
      if (right < items.length && this.key(items[right] as T) < this.key(items[smallest] as T)) smallest = right;
      if (smallest === i) return top;
      [items[smallest], items[i]] = [items[i] as T, items[smallest] as T];
      i = smallest;
    }
  }
}
