import { afterEach, describe, expect, it, vi } from 'vitest';
import { claim, startWorkflow } from '../../shared/sdk/index.js';
import { holdingVigil, useFakeSdkTimers, type Call } from '../support/holding-vigil.js';

/**
 * Against a Vigil that accepts calls and answers slowly or never, the SDK's heartbeats piled up: the
 * workflow scheduled its next beat when a report started, not when it was answered (~40 progress
 * calls in flight within seconds at a 1 s stuck threshold), and the agent's setInterval stacked the
 * same way, each call retrying, on a Vigil already struggling. At most one beat is now in flight; one
 * that comes due meanwhile goes once it settles. A beat's tries end with its budget: the interval,
 * but at least one whole try, so a hung Vigil holds a beat one try long and a slow one still answers
 * every beat. The caller's own calls are never held back.
 */
describe("the SDK's heartbeats against a Vigil that holds its calls", () => {
  afterEach(() => {
    vi.useRealTimers();
    vi.unstubAllGlobals();
  });

  const HOUR = 3_600_000;
  const iso = (ms: number) => new Date(ms).toISOString();

  /** A workflow beating every 250 ms (a 1 s stuck threshold), one try lasting at most 1 s, against a Vigil that holds every call from now on. */
  async function heldWorkflow() {
    useFakeSdkTimers();
    const vigil = holdingVigil(() => ({ status: 'RUNNING', cancel: false, deadlineAt: iso(Date.now() + HOUR) }));
    const work = await startWorkflow({ endpoint: vigil.endpoint, jobId: 'j', workflowId: 'wf', workerId: 'w', token: 't', stuckThresholdSeconds: 1, requestTimeoutMs: 1_000 });
    vigil.hold();
    return { vigil, work };
  }
  /** The SDK's beats: a report of the worker's own here names a step. */
  const isBeat = (call: Call) => call.path.endsWith('/progress') && !('step' in call.body);

  it('a workflow has one beat in flight over 40 intervals, each given up after one try, and beats every interval again once Vigil answers', async () => {
    // Prepare
    const { vigil, work } = await heldWorkflow();
    // Act: Vigil holds every call for 40 intervals
    await vi.advanceTimersByTimeAsync(40 * 250);
    const held = vigil.unanswered();
    const answered = vigil.answerAll();
    await vi.advanceTimersByTimeAsync(10 * 250);
    work.stop();
    // Assess: one beat held (without one beat in flight: 40)
    expect(held.filter(isBeat)).toHaveLength(1);
    // Assess: a beat a try (1 s), each given up as the one owed went (without a beat's budget: one beat, held throughout, for its 5 tries)
    const heldBeats = vigil.calls.slice(1, answered.index).filter(isBeat);
    expect(heldBeats.map((beat) => beat.at)).toEqual(Array.from({ length: 10 }, (_, n) => 250 + n * 1_000));
    for (const [n, beat] of heldBeats.slice(0, -1).entries()) expect(beat.endedAt, `beat ${n} ended after its successor went`).toBeLessThanOrEqual(heldBeats[n + 1]?.at ?? 0);
    // Assess: once Vigil answers, the beat owed meanwhile at once, then one every 250 ms
    expect(vigil.sentSince(answered, isBeat)).toEqual([0, 250, 500, 750, 1000, 1250, 1500, 1750, 2000, 2250, 2500]);
  });

  it("an agent's beat against a Vigil that holds it is given up when its interval is over: one try a beat, at the cadence, never two at once", async () => {
    // Prepare: a beat every second; no checkpoint request within the test
    useFakeSdkTimers();
    const vigil = holdingVigil(({ path }) =>
      path.endsWith('/claims')
        ? { itemId: 'item-1', attempt: 1, token: 'tok', input: null, deadlineAt: iso(Date.now() + HOUR), commands: [], checkpointIntervalSeconds: 3_600, lastCheckpoint: null }
        : { action: 'continue', deadlineAt: iso(Date.now() + HOUR) },
    );
    const attempt = await claim({ endpoint: vigil.endpoint, heartbeatIntervalMs: 1_000, requestTimeoutMs: 1_000 }, 'pool-1', 'agent-a');
    if (!attempt) throw new Error('nothing claimed');
    // Act: Vigil holds every call for 10 intervals
    vigil.hold();
    await vi.advanceTimersByTimeAsync(10 * 1_000);
    const held = vigil.unanswered();
    attempt.stop();
    // Assess: one beat held, one try a beat, each given up by the time the next went (without a beat's budget: the first, held throughout)
    const beats = vigil.calls.filter((call) => call.path.endsWith('/heartbeat'));
    expect(held).toHaveLength(1);
    expect(beats.map((beat) => beat.at)).toEqual(Array.from({ length: 10 }, (_, n) => (n + 1) * 1_000));
    for (const [n, beat] of beats.slice(0, -1).entries()) expect(beat.endedAt, `beat ${n} ended after its successor went`).toBeLessThanOrEqual(beats[n + 1]?.at ?? 0);
  });

  it("against a Vigil slower than the cadence, every agent beat is answered, one after another, and the agent hears its terminate", async () => {
    // Prepare: a beat every second; Vigil answers each call 1.5 s late, and from 6 s on tells the attempt to terminate
    useFakeSdkTimers();
    const vigil = holdingVigil(
      ({ path, at }) =>
        path.endsWith('/claims')
          ? { itemId: 'item-1', attempt: 1, token: 'tok', input: null, deadlineAt: iso(Date.now() + HOUR), commands: [], checkpointIntervalSeconds: 3_600, lastCheckpoint: null }
          : { action: at >= 6_000 ? 'terminate' : 'continue', deadlineAt: iso(Date.now() + HOUR), ...(at >= 6_000 ? { terminateBy: iso(at + 30_000) } : {}) },
      { latencyMs: 1_500 },
    );
    const failures: unknown[] = [];
    const claiming = claim({ endpoint: vigil.endpoint, heartbeatIntervalMs: 1_000, onHeartbeatError: (error) => failures.push(error) }, 'pool-1', 'agent-a');
    await vi.advanceTimersByTimeAsync(1_500);
    const attempt = await claiming;
    if (!attempt) throw new Error('nothing claimed');
    // Act
    await vi.advanceTimersByTimeAsync(10_000);
    const beats = vigil.calls.filter((call) => call.path.endsWith('/heartbeat')).map(({ at, endedAt }) => ({ at, endedAt }));
    const toldToStop = attempt.signal.aborted;
    attempt.stop();
    // Assess: every beat answered in its 1.5 s, none given up (with a budget of the interval alone, each was cut at 1 s and the terminate never heard)
    expect(failures).toEqual([]);
    expect(beats.length).toBeGreaterThanOrEqual(5);
    expect(beats.slice(0, -1)).toEqual(beats.slice(0, -1).map(({ at }) => ({ at, endedAt: at + 1_500 })));
    expect(toldToStop).toBe(true);
  });

  it("a workflow's own report goes out beside a held beat, and stands for the beat owed", async () => {
    // Prepare
    const { vigil, work } = await heldWorkflow();
    await vi.advanceTimersByTimeAsync(40 * 250);
    // Act: the worker reports a step while the beat is held
    void work.progress('step-3').catch(() => undefined);
    await vi.advanceTimersByTimeAsync(0);
    const held = vigil.unanswered();
    const answered = vigil.answerAll();
    await vi.advanceTimersByTimeAsync(4 * 250);
    work.stop();
    // Assess: the report reached Vigil while a beat was in flight
    expect(held.map((call) => call.body)).toEqual([{ workerId: 'w' }, { workerId: 'w', step: 'step-3' }]);
    // Assess: a call went out after the beat came due: the next beat is an interval after it, none at once
    expect(vigil.sentSince(answered, isBeat)).toEqual([250, 500, 750, 1000]);
  });

  it('an agent has one beat in flight over 30 intervals and a checkpoint window opening, and its own heartbeat() is not held back', async () => {
    // Prepare: a beat every second; a checkpoint request opens 20 s after the claim
    useFakeSdkTimers();
    const vigil = holdingVigil(({ path }) =>
      path.endsWith('/claims')
        ? { itemId: 'item-1', attempt: 1, token: 'tok', input: null, deadlineAt: iso(Date.now() + HOUR), commands: [], checkpointIntervalSeconds: 20, lastCheckpoint: null }
        : { action: 'continue', deadlineAt: iso(Date.now() + HOUR) },
    );
    const attempt = await claim({ endpoint: vigil.endpoint, heartbeatIntervalMs: 1_000 }, 'pool-1', 'agent-a');
    if (!attempt) throw new Error('nothing claimed');
    const heartbeats = () => vigil.unanswered().filter((call) => call.path.endsWith('/heartbeat')).length;
    // Act: Vigil holds every call for 30 intervals (the beat just after the window opens at 20.25 s among them)
    vigil.hold();
    await vi.advanceTimersByTimeAsync(30 * 1_000);
    const heldBeats = heartbeats();
    void attempt.heartbeat().catch(() => undefined);
    await vi.advanceTimersByTimeAsync(0);
    const withOwnCall = heartbeats();
    const answered = vigil.answerAll();
    await vi.advanceTimersByTimeAsync(5 * 1_000);
    attempt.stop();
    // Assess: one beat held (without the fix: 31), the agent's own heartbeat() went out beside it
    expect(heldBeats).toBe(1);
    expect(withOwnCall).toBe(2);
    // Assess: once Vigil answers, the beat owed meanwhile at once, then one every second again
    expect(vigil.sentSince(answered, (call) => call.path.endsWith('/heartbeat'))).toEqual([0, 1_000, 2_000, 3_000, 4_000, 5_000]);
  });

  it('the beat due just after a checkpoint window opens, held back by a beat in flight, goes once that one is answered and hears the request', async () => {
    // Prepare: beats every 6.5 s (at 19.5 s, then 26 s); a request opens 20 s after the claim, for 2 s
    useFakeSdkTimers();
    const vigil = holdingVigil(({ path, at }) =>
      path.endsWith('/claims')
        ? { itemId: 'item-1', attempt: 1, token: 'tok', input: null, deadlineAt: iso(Date.now() + HOUR), commands: [], checkpointIntervalSeconds: 20, lastCheckpoint: null }
        : { action: at >= 20_000 && at < 22_000 ? 'checkpoint' : 'continue', deadlineAt: iso(Date.now() + HOUR) },
    );
    const attempt = await claim({ endpoint: vigil.endpoint, heartbeatIntervalMs: 6_500 }, 'pool-1', 'agent-a');
    if (!attempt) throw new Error('nothing claimed');
    let requested = false;
    attempt.onCheckpointRequested(() => (requested = true));
    // Act: the beat at 19.5 s, before the opening, is held until 21 s, past the beat due at 20.25 s
    await vi.advanceTimersByTimeAsync(19_000);
    vigil.hold();
    await vi.advanceTimersByTimeAsync(2_000);
    const held = vigil.unanswered().length;
    vigil.answerAll();
    await vi.advanceTimersByTimeAsync(0);
    attempt.stop();
    // Assess: one beat held; the one owed went at 21 s, inside the window (skipped, the next beat at 30 s misses it)
    expect(held).toBe(1);
    expect(requested).toBe(true);
  });
});
