import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { MAX_TIMEOUT_MS, setLongTimeout, sleepLong } from '../../../shared/ports/long-timeout.js';

/**
 * Proves that `setLongTimeout` and `sleepLong` wait the whole delay when it is longer than Node's
 * setTimeout can wait (2^31 − 1 ms, which fires after 1 ms instead), and fire neither early nor late.
 * The fake timers overflow as Node does.
 */
describe('a timer longer than setTimeout can wait', () => {
  beforeEach(() => void vi.useFakeTimers());
  afterEach(() => void vi.useRealTimers());

  const ONE_YEAR_MS = 31_536_000_000;

  it('the fake timers overflow as Node does: a plain setTimeout of a year fires at once', () => {
    // Prepare
    const fired = vi.fn();
    setTimeout(fired, ONE_YEAR_MS);
    // Act
    vi.advanceTimersByTime(1);
    // Assess
    expect(fired).toHaveBeenCalledOnce();
  });

  it('a one-year timer fires after exactly one year', () => {
    // Prepare
    const fired = vi.fn();
    setLongTimeout(fired, ONE_YEAR_MS);
    // Act and assess
    vi.advanceTimersByTime(MAX_TIMEOUT_MS + 1);
    expect(fired).not.toHaveBeenCalled();
    vi.advanceTimersByTime(ONE_YEAR_MS - MAX_TIMEOUT_MS - 2);
    expect(fired).not.toHaveBeenCalled();
    vi.advanceTimersByTime(1);
    expect(fired).toHaveBeenCalledOnce();
  });

  it('a short timer fires as setTimeout would', () => {
    // Prepare
    const fired = vi.fn();
    setLongTimeout(fired, 250);
    // Act and assess
    vi.advanceTimersByTime(249);
    expect(fired).not.toHaveBeenCalled();
    vi.advanceTimersByTime(1);
    expect(fired).toHaveBeenCalledOnce();
  });

  it('a cleared timer never fires, also when cleared between its steps', () => {
    // Prepare
    const fired = vi.fn();
    const timer = setLongTimeout(fired, ONE_YEAR_MS);
    vi.advanceTimersByTime(MAX_TIMEOUT_MS + 1_000);
    // Act
    timer.clear();
    vi.advanceTimersByTime(ONE_YEAR_MS);
    // Assess
    expect(fired).not.toHaveBeenCalled();
  });

  it('sleepLong of 30 days settles after 30 days, not at once', async () => {
    // Prepare
    const THIRTY_DAYS_MS = 2_592_000_000;
    let settled = false;
    void sleepLong(THIRTY_DAYS_MS).then(() => (settled = true));
    // Act and assess
    await vi.advanceTimersByTimeAsync(THIRTY_DAYS_MS - 1);
    expect(settled).toBe(false);
    await vi.advanceTimersByTimeAsync(1);
    expect(settled).toBe(true);
  });
});
