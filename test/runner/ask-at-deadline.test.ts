import { describe, expect, it } from 'vitest';
import { vigilAnswered } from '../../shared/runner/ask-at-deadline.js';
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
