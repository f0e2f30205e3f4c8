import { afterEach, describe, expect, it, vi } from 'vitest';
import { claim, startWorkflow } from '../../shared/sdk/index.js';
import { holdingVigil, useFakeSdkTimers, type Call } from '../support/holding-vigil.js';
import { useUnhandledRejections } from '../support/unhandled-rejections.js';

/**
 * A worker's `onHeartbeatError` that throws made every failed background beat an unhandled rejection,
 * which crashes a Node process (Node ≥ 15). The SDK contains it: the beats go on, the callback is still
 * told of every failure, and the fault is reported once, as a warning.
 */
describe('an onHeartbeatError callback that throws', () => {
  const HOUR = 3_600_000;
  const iso = (ms: number) => new Date(ms).toISOString();
  const isBeat = (call: Call) => call.path.endsWith('/progress') || call.path.endsWith('/heartbeat');
  const unhandled = useUnhandledRejections();

  afterEach(() => {
    vi.useRealTimers();
    vi.unstubAllGlobals();
    vi.restoreAllMocks();
  });

  /** A callback that counts the failures it is told of, and throws on each. */
  function faultyCallback() {
    const told: unknown[] = [];
    return {
      told,
      onHeartbeatError: (error: unknown) => {
        told.push(error);
        throw new Error('a bug in the worker’s own error handler');
      },
    };
  }

  /** Lets the rejections of the timers just run reach Node's unhandled-rejection check. */
  const settleRejections = () => new Promise<void>((resolve) => setImmediate(resolve));

  it('crashes nothing in a workflow: the beats go on, each failure is still told, and one warning names the fault', async () => {
    // Prepare: a beat every 250 ms, each given up after one 1 s try against a Vigil that holds every call
    useFakeSdkTimers();
    const warnings = vi.spyOn(process, 'emitWarning').mockImplementation(() => undefined);
    const vigil = holdingVigil(() => ({ status: 'RUNNING', cancel: false, deadlineAt: iso(Date.now() + HOUR) }));
    const callback = faultyCallback();
    const work = await startWorkflow({ endpoint: vigil.endpoint, jobId: 'j', workflowId: 'wf', workerId: 'w', token: 't', stuckThresholdSeconds: 1, requestTimeoutMs: 1_000, onHeartbeatError: callback.onHeartbeatError });
    vigil.hold();
    // Act
    await vi.advanceTimersByTimeAsync(5_250);
    await settleRejections();
    work.stop();
    // Assess
    expect(unhandled).toEqual([]);
    expect(callback.told.length).toBeGreaterThanOrEqual(4);
    expect(vigil.calls.filter(isBeat).length).toBeGreaterThanOrEqual(6);
    expect(warnings).toHaveBeenCalledTimes(1);
    expect(String(warnings.mock.calls[0]?.[0])).toContain('onHeartbeatError failed');
  });

  it('crashes nothing in an agent: the beats go on and each failure is still told', async () => {
    // Prepare: a beat every second, each given up after one 1 s try
    useFakeSdkTimers();
    const warnings = vi.spyOn(process, 'emitWarning').mockImplementation(() => undefined);
    const vigil = holdingVigil(({ path }) =>
      path.endsWith('/claims')
        ? { itemId: 'item-1', attempt: 1, token: 'tok', input: null, deadlineAt: iso(Date.now() + HOUR), commands: [], checkpointIntervalSeconds: 3_600, lastCheckpoint: null }
        : { action: 'continue', deadlineAt: iso(Date.now() + HOUR) },
    );
    const callback = faultyCallback();
    const attempt = await claim({ endpoint: vigil.endpoint, heartbeatIntervalMs: 1_000, requestTimeoutMs: 1_000, onHeartbeatError: callback.onHeartbeatError }, 'pool-1', 'agent-a');
    if (!attempt) throw new Error('nothing claimed');
    vigil.hold();
    // Act
    await vi.advanceTimersByTimeAsync(6_000);
    await settleRejections();
    attempt.stop();
    // Assess
    expect(unhandled).toEqual([]);
    expect(callback.told.length).toBeGreaterThanOrEqual(4);
    expect(vigil.calls.filter(isBeat).length).toBeGreaterThanOrEqual(5);
    expect(attempt.signal.aborted).toBe(false);
    expect(warnings).toHaveBeenCalledTimes(1);
  });
});
