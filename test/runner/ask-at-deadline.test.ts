import { afterEach, describe, expect, it, vi } from 'vitest';
import { superviseHearingVigil, vigilAnswered } from '../../shared/runner/ask-at-deadline.js';
import { ASK_AGAIN_MAX_MS } from '../../shared/sdk/ask-again.js';
import type { ChildGroup } from '../../shared/runner/process-group.js';
import { VigilApiError, VigilUnreachableError } from '../../shared/sdk/errors.js';

/** At a deadline its clock saw come, the runner asks Vigil: an answer, any answer, means Vigil decides. */
describe('vigilAnswered: whether Vigil answers about a deadline in time', () => {
  const never = new AbortController().signal;

  it('an answer is true at once', async () => {
    // Act
    const answered = await vigilAnswered(async () => ({ action: 'continue' }), Date.now() + 5_000, never);
    // Assess
    expect(answered).toBe(true);
  });

  it('a refusal is an answer too: Vigil is reachable', async () => {
    // Act
    const answered = await vigilAnswered(() => Promise.reject(new VigilApiError(409, 'stale_attempt', 'stale')), Date.now() + 5_000, never);
    // Assess
    expect(answered).toBe(true);
  });

  it('a Vigil that does not answer is asked again until the time is up, then it is false', async () => {
    // Prepare
    let tries = 0;
    const startedAt = Date.now();
    // Act
    const answered = await vigilAnswered(() => (tries++, Promise.reject(new VigilUnreachableError('down'))), startedAt + 800, never);
    // Assess
    expect(answered).toBe(false);
    expect(tries).toBeGreaterThan(1);
    expect(Date.now() - startedAt).toBeGreaterThanOrEqual(790);
  });

  it('a call that hangs does not hold the runner past the time given', async () => {
    // Prepare
    const startedAt = Date.now();
    // Act
    const answered = await vigilAnswered(() => new Promise(() => undefined), startedAt + 500, never);
    // Assess
    expect(answered).toBe(false);
    expect(Date.now() - startedAt).toBeLessThan(2_000);
  });

  it('a Vigil that said stop meanwhile (the signal) ends the asking', async () => {
    // Prepare
    const stop = new AbortController();
    stop.abort();
    // Act
    const answered = await vigilAnswered(async () => ({}), Date.now() + 5_000, stop.signal);
    // Assess
    expect(answered).toBe(false);
  });
});

/** A child that runs until the test ends: only Vigil's word or the runner's clock stops it. */
const runningChild = (): ChildGroup => ({ pid: 1, exited: new Promise(() => undefined), signal: () => undefined, alive: () => true });

/** Vigil keeps saying "go on" past a deadline while its timer has not fired (up to its 70 s detection bound). */
describe('superviseHearingVigil: asking again while Vigil says go on past the deadline', () => {
  const DETECTION_BOUND_MS = 70_000;
  const deadlineAtMs = 10_000;

  afterEach(() => {
    vi.useRealTimers();
  });

  /** Supervises a running child with the deadline `deadlineMs()`; every ask is answered "go on" and its time kept. */
  function supervise(deadlineMs: () => number, answer: (askedAtMs: number) => void = () => undefined) {
    const vigil = new AbortController();
    const askedAtMs: number[] = [];
    const end = superviseHearingVigil(runningChild(), {
      signal: vigil.signal,
      deadlineMs,
      ask: async () => {
        askedAtMs.push(Date.now());
        answer(Date.now());
        return { action: 'continue' };
      },
      askUntilMs: (atMs) => atMs + 5_000,
    });
    return { vigil, askedAtMs, end };
  }

  it('asks again after 1, 2, 4, then every 8 s: 11 asks over the detection bound, not 70', async () => {
    // Prepare
    vi.useFakeTimers({ now: 0, toFake: ['setTimeout', 'clearTimeout', 'Date'] });
    const { vigil, askedAtMs, end } = supervise(() => deadlineAtMs);
    // Act
    await vi.advanceTimersByTimeAsync(deadlineAtMs + DETECTION_BOUND_MS);
    vigil.abort();
    await vi.advanceTimersByTimeAsync(100);
    // Assess
    const secondsPastDeadline = askedAtMs.map((atMs) => Math.round((atMs - deadlineAtMs) / 100) / 10);
    expect(secondsPastDeadline).toEqual([0, 1, 3, 7, 15, 23, 31, 39, 47, 55, 63]);
    expect(await end).toMatchObject({ kind: 'stop', cause: 'vigil' });
  });

  it('a stop Vigil decides between two asks is heard at the next one, within ASK_AGAIN_MAX_MS', async () => {
    // Prepare: Vigil's timer fires 60 s past the deadline; the ask after it answers cancel
    vi.useFakeTimers({ now: 0, toFake: ['setTimeout', 'clearTimeout', 'Date'] });
    const timerFiresAtMs = deadlineAtMs + 60_000;
    const { vigil, end } = supervise(
      () => deadlineAtMs,
      (atMs) => {
        if (atMs >= timerFiresAtMs) vigil.abort();
      },
    );
    // Act
    await vi.advanceTimersByTimeAsync(deadlineAtMs + DETECTION_BOUND_MS);
    // Assess
    const stopped = await end;
    expect(stopped).toMatchObject({ kind: 'stop', cause: 'vigil' });
    expect(stopped.kind === 'stop' && stopped.atMs - timerFiresAtMs).toBeLessThanOrEqual(ASK_AGAIN_MAX_MS);
  });

  it('a deadline an extension moved is asked about from 1 s again', async () => {
    // Prepare: the ask 15 s past the deadline hears of an extension 30 s further on
    vi.useFakeTimers({ now: 0, toFake: ['setTimeout', 'clearTimeout', 'Date'] });
    let dueMs = deadlineAtMs;
    const extendedToMs = deadlineAtMs + 45_000;
    const { vigil, askedAtMs, end } = supervise(
      () => dueMs,
      (atMs) => {
        if (atMs >= deadlineAtMs + 15_000) dueMs = extendedToMs;
      },
    );
    // Act
    await vi.advanceTimersByTimeAsync(extendedToMs + 8_000);
    vigil.abort();
    await vi.advanceTimersByTimeAsync(100);
    await end;
    // Assess
    const secondsPastExtension = askedAtMs.filter((atMs) => atMs >= extendedToMs).map((atMs) => Math.round((atMs - extendedToMs) / 100) / 10);
    expect(secondsPastExtension).toEqual([0, 1, 3, 7]);
  });
});
