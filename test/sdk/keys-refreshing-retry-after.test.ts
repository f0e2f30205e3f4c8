import { afterEach, describe, expect, it, vi } from 'vitest';
import { CallBudgetSpentError, startWorkflow, VigilHttp } from '../../shared/sdk/index.js';
import { useFakeSdkTimers } from '../support/holding-vigil.js';

/**
 * A container that read its key ring moments before a rotation answers a token under the new key
 * 503 `keys_refreshing` until it may read the ring again (up to 30 s), with that wait in `Retry-After`.
 * The SDK's own back-off spends its five tries in about 3 s; it waits the `Retry-After` instead, within
 * the call's budget. On the fake clock, exact.
 */
describe('the SDK waits out a 503 keys_refreshing for its Retry-After', () => {
  afterEach(() => {
    vi.useRealTimers();
    vi.unstubAllGlobals();
  });

  /** `fetch` stubbed by a stale container that reads its ring again at `refreshedAtMs` (fake clock); when each try was sent. */
  function staleContainer(refreshedAtMs: number) {
    const sentAtMs: number[] = [];
    vi.stubGlobal('fetch', async () => {
      const now = Date.now();
      sentAtMs.push(now);
      if (now >= refreshedAtMs) return new Response(JSON.stringify({ status: 'RUNNING', cancel: false, deadlineAt: new Date(now + 600_000).toISOString() }), { status: 200 });
      const retryAfterSeconds = Math.ceil((refreshedAtMs - now) / 1000);
      const body = { error: { code: 'keys_refreshing', message: `Retry in ${retryAfterSeconds} s.`, details: { retryAfterSeconds } } };
      return new Response(JSON.stringify(body), { status: 503, headers: { 'content-type': 'application/json', 'retry-after': String(retryAfterSeconds) } });
    });
    return sentAtMs;
  }

  const progressCall = (http: VigilHttp, callBudgetMs?: number) =>
    http.call('POST', '/jobs/job-1/workflows/wf-1/progress', { body: { workerId: 'w' }, token: 't', ...(callBudgetMs !== undefined ? { callBudgetMs } : {}) }).then(
      (answer) => ({ answer, error: undefined, atMs: Date.now() }),
      (error: unknown) => ({ answer: undefined, error, atMs: Date.now() }),
    );

  it('Retry-After: 12 is waited 12 s before the next try, which succeeds; under a 10 s budget it is not waited and the call fails at once', async () => {
    // Prepare
    useFakeSdkTimers();
    const http = new VigilHttp({ endpoint: 'https://vigil.example' });
    const sentAtMs = staleContainer(12_000);
    // Act
    const withinBudget = progressCall(http);
    await vi.advanceTimersByTimeAsync(15_000);
    const waited = await withinBudget;
    const stillStale = staleContainer(Date.now() + 12_000);
    const pastBudget = progressCall(http, 10_000);
    await vi.advanceTimersByTimeAsync(15_000);
    const notWaited = await pastBudget;
    // Assess: two tries, 12 s apart
    expect(waited.answer?.status).toBe(200);
    expect(sentAtMs).toEqual([0, 12_000]);
    // Assess: one try, no wait, and the error says why
    expect(notWaited.error).toBeInstanceOf(CallBudgetSpentError);
    expect(String(notWaited.error)).toContain('(1 try: 503 keys_refreshing (Retry-After 12 s))');
    expect(stillStale).toHaveLength(1);
    expect(notWaited.atMs - (stillStale[0] ?? 0)).toBe(0);
  });

  it("startWorkflow's first report outlasts a 20 s keys_refreshing window its back-off alone (about 3 s) would give up in", async () => {
    // Prepare
    useFakeSdkTimers();
    const sentAtMs = staleContainer(20_000);
    // Act
    const started = startWorkflow({ endpoint: 'https://vigil.example', jobId: 'job-1', workflowId: 'wf-1', workerId: 'w', token: 't', stuckThresholdSeconds: 120 }).then(
      (handle) => ({ handle, error: undefined }),
      (error: unknown) => ({ handle: undefined, error }),
    );
    await vi.advanceTimersByTimeAsync(25_000);
    const { handle, error } = await started;
    handle?.stop();
    // Assess: started once the container read its ring; the wait spent one try, not four
    expect(error).toBeUndefined();
    expect(handle?.signal.aborted).toBe(false);
    expect(sentAtMs).toEqual([0, 20_000]);
  });
});
