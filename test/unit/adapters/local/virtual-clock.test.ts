import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { VirtualClock } from '../../../../shared/adapters/local/virtual-clock.js';
import { T0 } from '../../../support/fixtures.js';

describe('VirtualClock: time that moves only when told to', () => {
  it('runs nothing until advanced, then each callback at its own due time, earliest first, ties in scheduling order', async () => {
    // Prepare
    const clock = new VirtualClock(T0);
    const ran: Array<[string, number]> = [];
    const at = (name: string, dueIn: number) => clock.schedule(T0 + dueIn, () => void ran.push([name, clock.now() - T0]));
    at('c', 30);
    at('a', 10);
    at('b1', 20);
    at('b2', 20);
    // Act
    const before = [...ran];
    const now = await clock.advance(25);
    // Assess
    expect(before).toEqual([]);
    expect(now).toBe(T0 + 25);
    expect(ran).toEqual([
      ['a', 10],
      ['b1', 20],
      ['b2', 20],
    ]);
    expect(clock.scheduled).toBe(1);
  });

  it('a callback scheduled by a callback within the advance runs in the same advance, at its own time', async () => {
    // Prepare
    const clock = new VirtualClock(T0);
    const ran: number[] = [];
    clock.schedule(T0 + 10, () => {
      ran.push(clock.now() - T0);
      clock.schedule(clock.now(), () => void ran.push(clock.now() - T0));
      clock.schedule(clock.now() + 5, () => void ran.push(clock.now() - T0));
    });
    // Act
    await clock.advance(100);
    // Assess
    expect(ran).toEqual([10, 10, 15]);
  });

  it('answers only once the work a callback started has settled', async () => {
    // Prepare
    const clock = new VirtualClock(T0);
    let done = false;
    clock.schedule(T0, async () => {
      await new Promise((resolve) => setTimeout(resolve, 10));
      done = true;
    });
    // Act
    await clock.settle();
    // Assess
    expect(done).toBe(true);
  });

  it('a withdrawn callback never runs', async () => {
    // Prepare
    const clock = new VirtualClock(T0);
    const ran: string[] = [];
    const withdraw = clock.schedule(T0 + 1, () => void ran.push('withdrawn'));
    clock.schedule(T0 + 2, () => void ran.push('kept'));
    // Act
    withdraw();
    await clock.advance(10);
    // Assess
    expect(ran).toEqual(['kept']);
    expect(clock.scheduled).toBe(0);
  });

  it('refuses to go back or to move by a bad amount, and stays where it was', async () => {
    const clock = new VirtualClock(T0);
    await expect(clock.advanceTo(T0 - 1)).rejects.toThrow(/never goes back/);
    await expect(clock.advance(-1)).rejects.toThrow(/≥ 0/);
    await expect(clock.advance(Number.NaN)).rejects.toThrow(/≥ 0/);
    expect(clock.now()).toBe(T0);
  });

  it('concurrent advances run one after the other', async () => {
    // Prepare
    const clock = new VirtualClock(T0);
    // Act
    const [first, second] = await Promise.all([clock.advance(10), clock.advance(10)]);
    // Assess
    expect([first, second]).toEqual([T0 + 10, T0 + 20]);
  });

  it('property: whatever the schedule and the steps, every callback runs once, never early, in (time, order) order', async () => {
    await fc.assert(
      fc.asyncProperty(fc.array(fc.integer({ min: 0, max: 1_000 }), { maxLength: 30 }), fc.array(fc.integer({ min: 0, max: 400 }), { minLength: 1, maxLength: 8 }), async (dues, steps) => {
        const clock = new VirtualClock(T0);
        const ran: Array<{ index: number; due: number; at: number }> = [];
        dues.forEach((due, index) => clock.schedule(T0 + due, () => void ran.push({ index, due, at: clock.now() - T0 })));
        for (const step of steps) await clock.advance(step);
        const end = clock.now() - T0;
        const expected = dues.map((due, index) => ({ index, due, at: due })).filter(({ due }) => due <= end);
        expected.sort((a, b) => a.due - b.due || a.index - b.index);
        expect(ran).toEqual(expected);
        expect(clock.scheduled).toBe(dues.length - expected.length);
      }),
      { numRuns: 200 },
    );
  });
});
