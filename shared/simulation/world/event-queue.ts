import { MinHeap } from '../../adapters/local/min-heap.js';

/** One thing that happens at a virtual time. Ties run in the order they were scheduled. */
export interface SimEvent {
  at: number;
  seq: number;
  label: string;
  run: () => Promise<void>;
}

/** The world's agenda, by (time, scheduling order), so a run is a pure function of its seed. */
export class EventQueue {
  private readonly heap = new MinHeap<SimEvent>(
    (event) => event.at,
    (event) => event.seq,
  );
  private seq = 0;

  get size(): number {
    return this.heap.size;
  }

  schedule(at: number, label: string, run: () => Promise<void>): void {
    this.heap.push({ at, seq: this.seq++, label, run });
  }

  pop(): SimEvent | undefined {
    return this.heap.pop();
  }
}
