/** One thing that happens at a virtual time. Ties run in the order they were scheduled. */
export interface SimEvent {
  at: number;
  seq: number;
  label: string;
  run: () => Promise<void>;
}

const before = (x: SimEvent, y: SimEvent) => x.at < y.at || (x.at === y.at && x.seq < y.seq);

/** The world's agenda: a binary heap by (time, scheduling order), so a run is a pure function of its seed. */
export class EventQueue {
  private readonly heap: SimEvent[] = [];
  private seq = 0;

  get size(): number {
    return this.heap.length;
  }

  schedule(at: number, label: string, run: () => Promise<void>): void {
    const heap = this.heap;
    heap.push({ at, seq: this.seq++, label, run });
    for (let i = heap.length - 1; i > 0; ) {
      const parent = (i - 1) >> 1;
      if (!before(heap[i] as SimEvent, heap[parent] as SimEvent)) break;
      [heap[i], heap[parent]] = [heap[parent] as SimEvent, heap[i] as SimEvent];
      i = parent;
    }
  }

  pop(): SimEvent | undefined {
    const heap = this.heap;
    const top = heap[0];
    const last = heap.pop();
    if (heap.length === 0 || last === undefined) return top;
    heap[0] = last;
    for (let i = 0; ; ) {
      const left = 2 * i + 1;
      const right = left + 1;
      let smallest = i;
      if (left < heap.length && before(heap[left] as SimEvent, heap[smallest] as SimEvent)) smallest = left;
      if (right < heap.length && before(heap[right] as SimEvent, heap[smallest] as SimEvent)) smallest = right;
      if (smallest === i) break;
      [heap[i], heap[smallest]] = [heap[smallest] as SimEvent, heap[i] as SimEvent];
      i = smallest;
    }
    return top;
  }
}
