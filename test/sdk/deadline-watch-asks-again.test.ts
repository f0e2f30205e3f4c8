import { afterEach, describe, expect, it, vi } from 'vitest';
import { watchDeadline } from '../../shared/sdk/deadline-watch.js';

/**
 * Past a deadline Vigil may keep saying "running" until its timer fires (up to its 70 s detection
 * bound). The SDK's deadline watch asked again every second meanwhile: up to 70 calls a workflow or
 * attempt per deadline. It now waits 1, 2, 4, then 8 s between asks.
 */
describe('the SDK deadline watch while Vigil says go on past the deadline', () => {
  const DETECTION_BOUND_MS = 70_000;
  const deadlineAtMs = 10_000;

  afterEach(() => {
    vi.useRealTimers();
  });

  /** A watch over `deadlineMs()` whose every ask Vigil answers "running" (and `answer` may act on). */
  function watch(deadlineMs: () => number, answer: (askedAtMs: number) => void = () => undefined) {
    const askedAtMs: number[] = [];
    const work = new AbortController();
    const watcher = watchDeadline({
      deadlineAtMs: deadlineMs,
      now: Date.now,
      ask: async () => {
        askedAtMs.push(Date.now());
        answer(Date.now());
        watcher.rearm();
      },
      stop: () => work.abort(),
      signal: work.signal,
    });
    watcher.rearm();
    return { askedAtMs, work, watcher };
  }

  const secondsPast = (fromMs: number, askedAtMs: readonly number[]) => askedAtMs.filter((atMs) => atMs >= fromMs).map((atMs) => (atMs - fromMs) / 1000);

  it('asks at the deadline, then after 1, 2, 4 and every 8 s: 11 asks over the detection bound, not 70', async () => {
    // Prepare
    vi.useFakeTimers({ now: 0, toFake: ['setTimeout', 'clearTimeout', 'Date'] });
    const { askedAtMs, work, watcher } = watch(() => deadlineAtMs);
    // Act
    await vi.advanceTimersByTimeAsync(deadlineAtMs + DETECTION_BOUND_MS);
    watcher.stop();
    // Assess
    expect(secondsPast(deadlineAtMs, askedAtMs)).toEqual([0, 1, 3, 7, 15, 23, 31, 39, 47, 55, 63]);
    expect(work.signal.aborted, 'a Vigil that answered was taken for unreachable').toBe(false);
  });

  it('a deadline an extension moved is asked about from 1 s again', async () => {
    // Prepare: the ask 15 s past the deadline hears of an extension to 45 s past it
    vi.useFakeTimers({ now: 0, toFake: ['setTimeout', 'clearTimeout', 'Date'] });
    let dueMs = deadlineAtMs;
    const extendedToMs = deadlineAtMs + 45_000;
    const { askedAtMs, watcher } = watch(
      () => dueMs,
      (atMs) => {
        if (atMs >= deadlineAtMs + 15_000) dueMs = extendedToMs;
      },
    );
    // Act
    await vi.advanceTimersByTimeAsync(extendedToMs + 8_000);
    watcher.stop();
    // Assess
    expect(secondsPast(deadlineAtMs, askedAtMs).filter((s) => s < 45)).toEqual([0, 1, 3, 7, 15]);
    expect(secondsPast(extendedToMs, askedAtMs)).toEqual([0, 1, 3, 7]);
  });
});
