import { afterEach, describe, expect, it, vi } from 'vitest';
import { claim, TerminateRequest } from '../../shared/sdk/index.js';
import { useFakeSdkTimers } from '../support/holding-vigil.js';

/**
 * A heartbeat refused for good (409 stale_attempt, 404 item or pool not found, 401/403 token) ends the
 * attempt: its signal fires. Its beats still went on, each refused again and told to `onHeartbeatError`
 * (`vigil run` logged "heartbeat failed" at every beat of its cleanup), until the caller stopped the
 * handle. Nothing such a beat says can count any more: no beat follows it.
 */
describe('an attempt whose heartbeat is refused for good', () => {
  afterEach(() => {
    vi.useRealTimers();
    vi.unstubAllGlobals();
  });

  const iso = (ms: number) => new Date(ms).toISOString();

  /** A Vigil that hands out one item and refuses every heartbeat of it from 2.5 s on as a stale attempt; when each beat was sent. */
  function stalingVigil() {
    const beats: number[] = [];
    vi.stubGlobal('fetch', async (url: string | URL) => {
      const path = new URL(String(url)).pathname;
      if (path.endsWith('/claims')) {
        return Response.json({ itemId: 'item-1', attempt: 1, token: 'tok', input: null, deadlineAt: iso(3_600_000), commands: [], checkpointIntervalSeconds: 3_600, lastCheckpoint: null });
      }
      beats.push(Date.now());
      return Date.now() < 2_500
        ? Response.json({ action: 'continue', deadlineAt: iso(3_600_000) })
        : Response.json({ error: { code: 'stale_attempt', message: 'A later attempt holds this item.' } }, { status: 409 });
    });
    return beats;
  }

  it('sends no beat after the refusal that ended it', async () => {
    // Prepare: a beat every second
    useFakeSdkTimers();
    const beats = stalingVigil();
    const failures: unknown[] = [];
    const attempt = await claim({ endpoint: 'https://vigil.example', heartbeatIntervalMs: 1_000, onHeartbeatError: (error) => failures.push(error) }, 'pool-1', 'agent-a');
    if (!attempt) throw new Error('nothing claimed');
    // Act: 10 s pass, the caller not yet stopping the handle (a runner's cleanup)
    await vi.advanceTimersByTimeAsync(10_000);
    const ended = attempt.signal.aborted;
    attempt.stop();
    // Assess
    expect(ended).toBe(true);
    expect(attempt.signal.reason).toBeInstanceOf(TerminateRequest);
    expect(beats).toEqual([1_000, 2_000, 3_000]);
    expect(failures).toHaveLength(1);
  });
});
