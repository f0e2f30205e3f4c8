import fc from 'fast-check';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { CallBudgetSpentError, VigilHttp, VigilUnreachableError } from '../../shared/sdk/index.js';
import { useFakeSdkTimers } from '../support/holding-vigil.js';

/**
 * Against a Vigil that accepts connections and never answers, one call took its five 10 s tries and
 * the waits between them, ~52 s, however long its caller could wait. With `callBudgetMs` a call ends
 * within its budget, whatever its retry policy, per-try timeout and the failures it meets; `Retry-After`
 * is waited only while it leaves time for the try after it.
 */
describe("a call to Vigil ends within its budget, all tries and waits included", () => {
  afterEach(() => {
    vi.useRealTimers();
    vi.unstubAllGlobals();
  });

  /** What Vigil does with one try: holds it until abandoned, refuses the connection, or answers. */
  type Try = { kind: 'hang' } | { kind: 'refuse' } | { kind: 'answer'; status: number; retryAfterSeconds?: number };

  /** `fetch` stubbed by a Vigil doing `tries[n]` with the n-th try (the last one again past the end); when each try was sent and settled. */
  function scriptedVigil(tries: readonly Try[]) {
    const seen: Array<{ sentAtMs: number; endedAtMs?: number; kind: Try['kind'] }> = [];
    vi.stubGlobal('fetch', (_url: string | URL, init: RequestInit = {}) => {
      const script = tries[Math.min(seen.length, tries.length - 1)] ?? { kind: 'hang' };
      const entry: (typeof seen)[number] = { sentAtMs: performance.now(), kind: script.kind };
      seen.push(entry);
      const settled = new Promise<Response>((resolve, reject) => {
        if (script.kind === 'refuse') return reject(new TypeError('fetch failed', { cause: { code: 'ECONNREFUSED' } }));
        if (script.kind === 'answer') {
          const headers: Record<string, string> = script.retryAfterSeconds === undefined ? {} : { 'retry-after': String(script.retryAfterSeconds) };
          return resolve(new Response(JSON.stringify({ ok: script.status < 400 }), { status: script.status, headers }));
        }
        init.signal?.addEventListener('abort', () => reject(init.signal?.reason), { once: true });
      });
      return settled.finally(() => (entry.endedAtMs = performance.now()));
    });
    return seen;
  }

  /** Runs one call to its end on the fake timers: what it settled to and how long it took. */
  async function timedCall(http: VigilHttp, callBudgetMs?: number) {
    const startedAtMs = performance.now();
    const outcome = http.call('GET', '/jobs/j1', callBudgetMs === undefined ? {} : { callBudgetMs }).then(
      (answer) => ({ answer, error: undefined }),
      (error: unknown) => ({ answer: undefined, error }),
    );
    await vi.runAllTimersAsync();
    return { ...(await outcome), elapsedMs: performance.now() - startedAtMs };
  }

  const failingTry: fc.Arbitrary<Try> = fc.oneof(
    fc.constant({ kind: 'hang' as const }),
    fc.constant({ kind: 'refuse' as const }),
    fc.constantFrom(500, 502, 503, 504).map((status) => ({ kind: 'answer' as const, status })),
    fc.integer({ min: 0, max: 40 }).map((retryAfterSeconds) => ({ kind: 'answer' as const, status: 429, retryAfterSeconds })),
  );

  it('a call Vigil never answers ends within its budget; no try outlasts its own timeout; it fails as unreachable, saying why', async () => {
    await fc.assert(
      fc.asyncProperty(
        fc.record({
          retries: fc.integer({ min: 0, max: 6 }),
          baseDelayMs: fc.integer({ min: 1, max: 2_000 }),
          maxDelayMs: fc.integer({ min: 1, max: 10_000 }),
          requestTimeoutMs: fc.integer({ min: 1, max: 15_000 }),
          callBudgetMs: fc.integer({ min: 1, max: 60_000 }),
          tries: fc.array(failingTry, { minLength: 1, maxLength: 7 }),
        }),
        async ({ retries, baseDelayMs, maxDelayMs, requestTimeoutMs, callBudgetMs, tries }) => {
          // Prepare
          useFakeSdkTimers();
          const seen = scriptedVigil(tries);
          const http = new VigilHttp({ endpoint: 'https://vigil.example', retry: { retries, baseDelayMs, maxDelayMs }, requestTimeoutMs, callBudgetMs });
          // Act
          const { error, elapsedMs } = await timedCall(http);
          vi.useRealTimers();
          // Assess: within the budget (the fake clock is exact), and never more tries than the policy's
          expect(elapsedMs).toBeLessThanOrEqual(callBudgetMs);
          expect(seen.length).toBeGreaterThanOrEqual(1);
          expect(seen.length).toBeLessThanOrEqual(retries + 1);
          for (const sent of seen) expect((sent.endedAtMs ?? Infinity) - sent.sentAtMs).toBeLessThanOrEqual(requestTimeoutMs);
          // Assess: unreachable; cut by the budget, it says so, else every try was made
          expect(error).toBeInstanceOf(VigilUnreachableError);
          if (error instanceof CallBudgetSpentError) {
            expect(error.message).toContain(`did not answer GET /jobs/j1 within ${Number((callBudgetMs / 1000).toFixed(2))} s (${seen.length === 1 ? '1 try' : `${seen.length} tries`}`);
          } else {
            expect(seen).toHaveLength(retries + 1);
            expect(elapsedMs).toBeLessThan(callBudgetMs);
          }
        },
      ),
      { numRuns: Number(process.env['PROPERTY_RUNS'] ?? 200) },
    );
  });

  it("a Retry-After that leaves time for the next try is waited; one past the budget is not: the call fails at once", async () => {
    // Prepare
    useFakeSdkTimers();
    const throttledOnce = () => scriptedVigil([{ kind: 'answer', status: 429, retryAfterSeconds: 2 }, { kind: 'answer', status: 200 }]);
    const http = new VigilHttp({ endpoint: 'https://vigil.example', retry: { baseDelayMs: 1, maxDelayMs: 1 } });
    // Act
    throttledOnce();
    const within = await timedCall(http, 3_000);
    const seen = throttledOnce();
    const past = await timedCall(http, 1_500);
    // Assess: waited the 2 s, then answered
    expect(within.answer?.status).toBe(200);
    expect(within.elapsedMs).toBeGreaterThanOrEqual(2_000);
    // Assess: no wait at all, and the error says why
    expect(past.elapsedMs).toBe(0);
    expect(past.error).toBeInstanceOf(CallBudgetSpentError);
    expect(String(past.error)).toContain('within 1.5 s (1 try: 429 http_error (Retry-After 2 s))');
    expect(seen).toHaveLength(1);
  });

  it('without a budget a call makes every try its policy allows, as before', async () => {
    // Prepare
    useFakeSdkTimers();
    const seen = scriptedVigil([{ kind: 'hang' }]);
    const http = new VigilHttp({ endpoint: 'https://vigil.example', retry: { retries: 4, baseDelayMs: 200, maxDelayMs: 5_000 } });
    // Act
    const { error, elapsedMs } = await timedCall(http);
    // Assess: five tries of 10 s
    expect(seen).toHaveLength(5);
    expect(elapsedMs).toBeGreaterThanOrEqual(50_000);
    expect(String(error)).toContain('did not answer GET /jobs/j1 (5 tries, the last: no answer within 10 s)');
  });
});
