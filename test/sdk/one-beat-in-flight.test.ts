import { afterEach, describe, expect, it, vi } from 'vitest';
import { claim, startWorkflow } from '../../shared/sdk/index.js';
import { holdingVigil, useFakeSdkTimers, type Call } from '../support/holding-vigil.js';

/**
 * Against a Vigil that accepts calls and answers slowly or never, the SDK's heartbeats piled up: the
 * workflow scheduled its next beat when a report started, not when it was answered (~40 progress
 * calls in flight within seconds at a 1 s stuck threshold), and the agent's setInterval stacked the
 * same way, each call retrying, on a Vigil already struggling. At most one beat is now in flight; one
 * that comes due meanwhile goes once it settles. A beat's tries end when the next comes due (it asks
 * the same again), so none holds past its successor. The caller's own calls are never held back.
 */
describe("the SDK's heartbeats against a Vigil that holds its calls", () => {
  afterEach(() => {
    vi.useRealTimers();
    vi.unstubAllGlobals();
  });

  const HOUR = 3_600_000;
  const iso = (ms: number) => new Date(ms).toISOString();

  /** A workflow beating every 250 ms (a 1 s stuck threshold) against a Vigil that holds every call from now on. */
  async function heldWorkflow() {
    useFakeSdkTimers();
    const vigil = holdingVigil(() => ({ status: 'RUNNING', cancel: false, deadlineAt: iso(Date.now() + HOUR) }));
    const work = await startWorkflow({ endpoint: vigil.endpoint, jobId: 'j', workflowId: 'wf', workerId: 'w', token: 't', stuckThresholdSeconds: 1 });
    vigil.hold();
    return { vigil, work };
  }
  /** The SDK's beats: a report of the worker's own here names a step. */
  const isBeat = (call: Call) => call.path.endsWith('/progress') && !('step' in call.body);

  it('a workflow has one beat in flight over 40 intervals, each given up as the next comes due, and beats every interval again once Vigil answers', async () => {
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
    // Assess: a beat every interval, one try each, each given up by the time the next went (without a beat's budget: one beat, held throughout)
    const heldBeats = vigil.calls.slice(1, answered.index).filter(isBeat);
    expect(heldBeats.map((beat) => beat.at)).toEqual(Array.from({ length: 40 }, (_, n) => (n + 1) * 250));
    for (const [n, beat] of heldBeats.slice(0, -1).entries()) expect(beat.endedAt, `beat ${n} ended after its successor went`).toBeLessThanOrEqual(heldBeats[n + 1]?.at ?? 0);
    // Assess: once Vigil answers, one every 250 ms
    expect(vigil.sentSince(answered, isBeat)).toEqual([250, 500, 750, 1000, 1250, 1500, 1750, 2000, 2250, 2500]);
  });

  it("an agent's beat against a Vigil that holds it is given up as the next comes due: one try a beat, at the cadence, never two at once", async () => {
    // Prepare: a beat every second; no checkpoint request within the test
    useFakeSdkTimers();
    const vigil = holdingVigil(({ path }) =>
      path.endsWith('/claims')
        ? { itemId: 'item-1', attempt: 1, token: 'tok', input: null, deadlineAt: iso(Date.now() + HOUR), commands: [], checkpointIntervalSeconds: 3_600, lastCheckpoint: null }
        : { action: 'continue', deadlineAt: iso(Date.now() + HOUR) },
    );
    const attempt = await claim({ endpoint: vigil.endpoint, heartbeatIntervalMs: 1_000 }, 'pool-1', 'agent-a');
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
    // Assess: once Vigil answers, one every second again (the beat held went at 30 s, when it came due)
    expect(vigil.sentSince(answered, (call) => call.path.endsWith('/heartbeat'))).toEqual([1_000, 2_000, 3_000, 4_000, 5_000]);
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
