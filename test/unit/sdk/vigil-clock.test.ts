import { describe, expect, it } from 'vitest';
import { VigilClock } from '../../../shared/sdk/vigil-clock.js';

/** A clock a test moves by hand: this machine's time. */
function handClock(startMs: number) {
  let nowMs = startMs;
  return { now: () => nowMs, move: (ms: number) => void (nowMs += ms) };
}

const httpDate = (ms: number) => new Date(ms).toUTCString();

describe('VigilClock: Vigil’s times on this machine’s clock, from the Date header of its answers', () => {
  const T = Date.parse('2026-01-15T12:00:00.000Z');

  it('before any answer with a Date header, this machine’s clock is taken as Vigil’s', () => {
    // Prepare
    const clock = new VigilClock(handClock(T).now);
    // Act
    clock.observe(null, T);
    clock.observe('not a date', T);
    // Assess
    expect(clock.offsetBounds()).toBeUndefined();
    expect(clock.toLocalMs(T + 5_000)).toBe(T + 5_000);
    expect(clock.vigilNowMs()).toBe(T);
  });

  it('a clock that agrees with Vigil’s to within the header’s second keeps its own time, to the millisecond', () => {
    // Prepare: the request leaves at T + 400 ms; Vigil writes its Date at T + 450 (header: T); the answer arrives at T + 500
    const local = handClock(T + 400);
    const clock = new VigilClock(local.now);
    local.move(100);
    // Act
    clock.observe(httpDate(T + 450), T + 400);
    // Assess
    expect(clock.offsetBounds()).toEqual({ lowMs: -500, highMs: 600 });
    expect(clock.offsetMs()).toBe(0);
    expect(clock.toLocalMs(T + 8_123)).toBe(T + 8_123);
  });

  it('a machine 15 s ahead of Vigil sees Vigil’s deadline 15 s later on its own clock, to within the header’s second', () => {
    // Prepare: Vigil reads 15 s less than this machine
    const local = handClock(T + 15_300);
    const clock = new VigilClock(local.now);
    local.move(40);
    // Act: Vigil wrote its Date at T + 320 on its clock
    clock.observe(httpDate(T + 320), T + 15_300);
    const deadlineOnVigil = T + 8_000;
    // Assess: the true local moment is T + 23 000; the estimate is never off by more than the second plus the round trip
    expect(clock.toLocalMs(deadlineOnVigil)).toBeGreaterThanOrEqual(T + 23_000 - 1_040);
    expect(clock.toLocalMs(deadlineOnVigil)).toBeLessThanOrEqual(T + 23_000 + 1_040);
    expect(Math.abs(clock.vigilNowMs() - (T + 360))).toBeLessThanOrEqual(1_040);
  });

  it('a machine 15 s behind Vigil sees Vigil’s deadline 15 s earlier on its own clock', () => {
    // Prepare
    const local = handClock(T);
    const clock = new VigilClock(local.now);
    local.move(20);
    // Act: Vigil's clock read T + 15 010 when it answered
    clock.observe(httpDate(T + 15_010), T);
    // Assess: the deadline 3 s ahead on Vigil's clock is about 3 s ahead on this one, not 18 s
    const localDeadline = clock.toLocalMs(T + 18_010);
    expect(localDeadline - local.now()).toBeGreaterThan(3_000 - 1_100);
    expect(localDeadline - local.now()).toBeLessThan(3_000 + 1_100);
  });

  it('only the latest answer counts: a Vigil clock that stands still (a virtual clock) moves its deadlines later on this one', () => {
    // Prepare: Vigil's clock is frozen at T; this machine's moves on
    const local = handClock(T);
    const clock = new VigilClock(local.now);
    clock.observe(httpDate(T), T);
    const deadlineOnVigil = T + 2_000;
    const first = clock.toLocalMs(deadlineOnVigil);
    // Act: 10 s later on this machine, Vigil still reads T
    local.move(10_000);
    clock.observe(httpDate(T), local.now());
    // Assess: the deadline, still 2 s away on Vigil's clock, is 2 s away on this one, to within the header's second
    expect(first).toBe(deadlineOnVigil);
    expect(clock.toLocalMs(deadlineOnVigil) - local.now()).toBeGreaterThanOrEqual(1_000);
    expect(clock.toLocalMs(deadlineOnVigil) - local.now()).toBeLessThanOrEqual(2_000);
  });

  it('localMsOf leaves no deadline as none', () => {
    expect(new VigilClock(() => T).localMsOf(undefined)).toBeUndefined();
  });
});
