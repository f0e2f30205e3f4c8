import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { MinHeap } from '../../../../shared/adapters/local/min-heap.js';

describe('MinHeap, the local scheduler\'s queue', () => {
  it('pops any pushed keys in ascending order, and then nothing', () => {
    fc.assert(
      fc.property(fc.array(fc.integer({ min: -1_000, max: 1_000 }), { maxLength: 200 }), (keys) => {
        // Prepare
        const heap = new MinHeap<number>((key) => key);
        keys.forEach((key) => heap.push(key));
        // Act
        const popped: Array<number | undefined> = [];
        while (heap.size > 0) popped.push(heap.pop());
        // Assess
        expect(popped).toEqual([...keys].sort((a, b) => a - b));
        expect(heap.pop()).toBeUndefined();
      }),
    );
  });

  it('peek shows the smallest key without removing it, also after pushes and pops interleave', () => {
    fc.assert(
      fc.property(fc.array(fc.option(fc.integer(), { nil: undefined }), { maxLength: 200 }), (ops) => {
        // Prepare: a number pushes, undefined pops; a sorted array is the reference
        const heap = new MinHeap<number>((key) => key);
        const reference: number[] = [];
        for (const op of ops) {
          // Act
          if (op === undefined) {
            expect(heap.pop()).toBe(reference.shift());
          } else {
            heap.push(op);
            reference.push(op);
            reference.sort((a, b) => a - b);
          }
          // Assess
          expect(heap.peek()).toBe(reference[0]);
          expect(heap.size).toBe(reference.length);
        }
      }),
    );
  });
});
