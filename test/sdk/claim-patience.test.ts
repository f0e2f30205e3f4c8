import { afterEach, describe, expect, it, vi } from 'vitest';
import { claim, VigilUnreachableError } from '../../shared/sdk/index.js';
import { holdingVigil, useFakeSdkTimers } from '../support/holding-vigil.js';

/**
 * How long one claim is repeated while Vigil does not answer: 35 s by default, past Vigil's 30 s
 * takeover of an abandoned claim (docs/agent-fleets.md), so a repeat either gets that claim's item or
 * takes the item in its stead. On the fake clock, exact; `vigil run`'s own test of what follows a claim
 * that gives up (test/runner/modes-lapses-and-stops.test.ts) sets it short.
 */
describe('claim() repeats one claim for its patience, then fails as unreachable', () => {
  afterEach(() => {
    vi.useRealTimers();
    vi.unstubAllGlobals();
    vi.restoreAllMocks();
  });

  /** A Vigil that answers every claim 503; when each was sent (fake ms) and the claimId it carried. */
  function downVigil() {
    const sent: Array<{ atMs: number; claimId: unknown }> = [];
    vi.stubGlobal('fetch', async (_url: string | URL, init: RequestInit = {}) => {
      sent.push({ atMs: Date.now(), claimId: (JSON.parse(String(init.body)) as { claimId?: unknown }).claimId });
      return new Response(JSON.stringify({ error: { code: 'upstream_unavailable', message: 'down' } }), { status: 503, headers: { 'content-type': 'application/json' } });
    });
    return sent;
  }

  /** With every back-off at its longest (full jitter's random at 1): a call's five tries take 3 s, and the wait before a repeat reaches 5 s. */
  async function claimUntilItFails(patience: { claimPatienceMs?: number }) {
    useFakeSdkTimers();
    vi.spyOn(Math, 'random').mockReturnValue(1);
    const sent = downVigil();
    const outcome = claim({ endpoint: 'https://vigil.example', ...patience }, 'pool-1', 'agent-a').then(
      () => ({ error: undefined, atMs: Date.now() }),
      (error: unknown) => ({ error, atMs: Date.now() }),
    );
    await vi.runAllTimersAsync();
    return { ...(await outcome), sent };
  }

  /** The most a claim goes on past its patience: one wait before a repeat (5 s) and the repeat's tries (3 s). */
  const LAST_REPEAT_MS = 5_000 + 3_000;

  it("by default for 35 s: past Vigil's 30 s takeover of an abandoned claim", async () => {
    // Act
    const { error, atMs, sent } = await claimUntilItFails({});
    // Assess: one claimId throughout, still repeated past 30 s; it gives up at its first failure from 35 s on
    expect(error).toBeInstanceOf(VigilUnreachableError);
    expect(new Set(sent.map((s) => s.claimId)).size).toBe(1);
    expect(sent.some((s) => s.atMs > 30_000), JSON.stringify(sent.map((s) => s.atMs))).toBe(true);
    expect(atMs).toBeGreaterThanOrEqual(35_000);
    expect(atMs).toBeLessThan(35_000 + LAST_REPEAT_MS);
  });

  it('against a Vigil that holds every call unanswered: within its patience and one try, not a call of five tries more', async () => {
    // Arrange: every try times out at the request timeout (10 s here); one call's five tries and waits would hold ~53 s
    useFakeSdkTimers();
    vi.spyOn(Math, 'random').mockReturnValue(1);
    const vigil = holdingVigil(() => ({}));
    vigil.hold();
    const requestTimeoutMs = 10_000;
    const outcome = claim({ endpoint: vigil.endpoint, requestTimeoutMs, claimPatienceMs: 12_000 }, 'pool-1', 'agent-a').then(
      () => ({ error: undefined, atMs: Date.now() }),
      (error: unknown) => ({ error, atMs: Date.now() }),
    );
    // Act
    await vi.runAllTimersAsync();
    const { error, atMs } = await outcome;
    // Assess: it gives up once the patience is spent, the try running then cut at it; every try it sent has ended
    expect(error).toBeInstanceOf(VigilUnreachableError);
    expect(atMs).toBeGreaterThanOrEqual(12_000);
    expect(atMs).toBeLessThanOrEqual(12_000 + requestTimeoutMs);
    expect(vigil.unanswered()).toEqual([]);
  });

  it("on this machine's elapsed time: a wall clock stepped back an hour (NTP) mid-claim does not keep it repeating for that hour", async () => {
    // Prepare
    useFakeSdkTimers();
    vi.spyOn(Math, 'random').mockReturnValue(1);
    downVigil();
    const startedAtMs = performance.now();
    const outcome = claim({ endpoint: 'https://vigil.example' }, 'pool-1', 'agent-a').then(
      (): { error: unknown; elapsedMs: number } => ({ error: undefined, elapsedMs: performance.now() - startedAtMs }),
      (error: unknown) => ({ error, elapsedMs: performance.now() - startedAtMs }),
    );
    // Act: 10 s in, the wall clock steps back an hour
    await vi.advanceTimersByTimeAsync(10_000);
    vi.setSystemTime(Date.now() - 3_600_000);
    await vi.runAllTimersAsync();
    const { error, elapsedMs } = await outcome;
    // Assess
    expect(error).toBeInstanceOf(VigilUnreachableError);
    expect(elapsedMs).toBeGreaterThanOrEqual(35_000);
    expect(elapsedMs).toBeLessThan(35_000 + LAST_REPEAT_MS);
  });

  it('for claimPatienceMs when given', async () => {
    // Act
    const { error, atMs } = await claimUntilItFails({ claimPatienceMs: 3_000 });
    // Assess
    expect(error).toBeInstanceOf(VigilUnreachableError);
    expect(atMs).toBeGreaterThanOrEqual(3_000);
    expect(atMs).toBeLessThan(3_000 + LAST_REPEAT_MS);
  });
});
