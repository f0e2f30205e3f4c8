import { afterEach, describe, expect, it, vi } from 'vitest';
import { progressBody } from '../../shared/contract/manager-requests.js';
import { startWorkflow, VigilApiError } from '../../shared/sdk/index.js';
import { useFakeSdkTimers } from '../support/holding-vigil.js';

const json = (status: number, body: unknown) => new Response(JSON.stringify(body), { status, headers: { 'content-type': 'application/json' } });

/**
 * `fetch` stubbed by a region manager that checks a progress body as the route does (400 for a
 * progress outside 0–1) and answers `cancel` once `cancelled` is set.
 */
function checkingVigil() {
  const state = { cancelled: false, refused: 0, bodies: [] as unknown[] };
  vi.stubGlobal('fetch', async (_url: string | URL, init: RequestInit = {}) => {
    const body: unknown = JSON.parse(String(init.body ?? '{}'));
    state.bodies.push(body);
    const parsed = progressBody.safeParse(body);
    if (!parsed.success) {
      state.refused++;
      return json(400, { error: { code: 'invalid_request', message: 'progress must be at most 1' } });
    }
    const status = state.cancelled ? 'CANCELLED' : 'RUNNING';
    return json(200, { status, cancel: state.cancelled, deadlineAt: new Date(3_600_000).toISOString() });
  });
  return state;
}

describe('a progress Vigil refuses', () => {
  afterEach(() => {
    vi.useRealTimers();
    vi.unstubAllGlobals();
  });

  it('is refused alone: the heartbeats that follow do not repeat it, and still tell the worker to stop', async () => {
    // Prepare: heartbeats every 2 s (stuck threshold 8 s); the deadline an hour away
    useFakeSdkTimers();
    const vigil = checkingVigil();
    const heartbeatErrors: unknown[] = [];
    const handle = await startWorkflow({
      endpoint: 'https://vigil.example', jobId: 'job-1', workflowId: 'wf-1', workerId: 'w', token: 't',
      stuckThresholdSeconds: 8, onHeartbeatError: (error) => heartbeatErrors.push(error),
    });
    // A percent where a fraction is asked for: this call is refused, as it should be
    const refused = await handle.progress(42).catch((error: unknown) => error);
    // Act: the job is cancelled; the next heartbeats come
    vigil.cancelled = true;
    await vi.advanceTimersByTimeAsync(10_000);
    handle.stop();
    // Assess
    expect(refused).toBeInstanceOf(VigilApiError);
    expect(vigil.refused, 'calls refused as invalid').toBe(1);
    expect(heartbeatErrors).toEqual([]);
    expect(handle.signal.aborted, 'the worker was told to stop').toBe(true);
  });

  it('does not replace the last progress Vigil took: the heartbeats carry that one', async () => {
    // Prepare
    useFakeSdkTimers();
    const vigil = checkingVigil();
    const handle = await startWorkflow({ endpoint: 'https://vigil.example', jobId: 'job-1', workflowId: 'wf-1', workerId: 'w', token: 't', stuckThresholdSeconds: 8 });
    await handle.progress(0.4);
    await handle.progress(Number.NaN).catch(() => undefined);
    // Act
    const before = vigil.bodies.length;
    await vi.advanceTimersByTimeAsync(2_500);
    handle.stop();
    // Assess
    expect(vigil.bodies.slice(before)).toEqual([{ workerId: 'w', progress: 0.4 }]);
  });
});
