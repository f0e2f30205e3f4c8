import { afterEach, describe, expect, it, vi } from 'vitest';
import { claim, startWorkflow } from '../../shared/sdk/index.js';

/**
 * Against a Vigil that accepts calls and answers slowly or never, the SDK's heartbeats piled up: the
 * workflow scheduled its next beat when a report started, not when it was answered (~40 progress
 * calls in flight within seconds at a 1 s stuck threshold), and the agent's setInterval stacked the
 * same way, each call retrying, on a Vigil already struggling. At most one beat is now in flight; one
 * that comes due meanwhile goes once it settles. The caller's own calls are never held back.
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
    vi.useFakeTimers({ now: 0, toFake: ['setTimeout', 'clearTimeout', 'setInterval', 'clearInterval', 'Date'] });
    const vigil = holdingVigil(() => ({ status: 'RUNNING', cancel: false, deadlineAt: iso(Date.now() + HOUR) }));
    const work = await startWorkflow({ endpoint: vigil.endpoint, jobId: 'j', workflowId: 'wf', workerId: 'w', token: 't', stuckThresholdSeconds: 1 });
    vigil.hold();
    return { vigil, work };
  }
  /** The SDK's beats: a report of the worker's own here names a step. */
  const isBeat = (call: Call) => call.path.endsWith('/progress') && !('step' in call.body);

  it('a workflow has one beat in flight over 40 intervals, and beats every interval again once Vigil answers', async () => {
    // Prepare
    const { vigil, work } = await heldWorkflow();
    // Act: Vigil holds every call for 40 intervals
    await vi.advanceTimersByTimeAsync(40 * 250);
    const held = vigil.unanswered();
    const answered = vigil.answerAll();
    await vi.advanceTimersByTimeAsync(10 * 250);
    work.stop();
    // Assess: one beat held (without the fix: 40)
    expect(held.filter(isBeat)).toHaveLength(1);
    // Assess: the beat owed goes as soon as Vigil answers, then one every 250 ms
    expect(vigil.sentSince(answered, isBeat)).toEqual([0, 250, 500, 750, 1000, 1250, 1500, 1750, 2000, 2250, 2500]);
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
    vi.useFakeTimers({ now: 0, toFake: ['setTimeout', 'clearTimeout', 'setInterval', 'clearInterval', 'Date'] });
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
    // Assess: the beat owed goes as soon as Vigil answers, then one every second again
    expect(vigil.sentSince(answered, (call) => call.path.endsWith('/heartbeat'))).toEqual([0, 1_000, 2_000, 3_000, 4_000, 5_000]);
  });

  it('the beat due just after a checkpoint window opens, held back by a beat in flight, goes once that one is answered and hears the request', async () => {
    // Prepare: beats every 6.5 s (at 19.5 s, then 26 s); a request opens 20 s after the claim, for 2 s
    vi.useFakeTimers({ now: 0, toFake: ['setTimeout', 'clearTimeout', 'setInterval', 'clearInterval', 'Date'] });
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

interface Call {
  path: string;
  body: Record<string, unknown>;
  at: number;
  answered: boolean;
  answer?: () => void;
}

/**
 * `fetch` stubbed by a Vigil that answers `reply(call)` at once until `hold()`, then holds every call
 * until `answerAll()` answers them and it answers at once again. A call's abort fails it, as fetch does.
 * `sentSince(answerAll())`: when the calls that followed were sent, in ms after the answers.
 */
function holdingVigil(reply: (call: Call) => unknown) {
  const calls: Call[] = [];
  let holding = false;
  const respond = (call: Call) => new Response(JSON.stringify(reply(call)), { status: 200, headers: { 'content-type': 'application/json' } });
  vi.stubGlobal('fetch', async (url: string | URL, init: RequestInit = {}) => {
    const path = new URL(String(url)).pathname;
    const call: Call = { path, body: JSON.parse(String(init.body ?? '{}')) as Record<string, unknown>, at: Date.now(), answered: false };
    calls.push(call);
    const answer = holding
      ? new Promise<Response>((resolve, reject) => {
          call.answer = () => resolve(respond(call));
          init.signal?.addEventListener('abort', () => reject(init.signal?.reason), { once: true });
        })
      : Promise.resolve(respond(call));
    return answer.finally(() => (call.answered = true));
  });
  return {
    endpoint: 'https://vigil.example',
    calls,
    hold: () => void (holding = true),
    unanswered: () => calls.filter((call) => !call.answered),
    answerAll: (): { index: number; at: number } => {
      holding = false;
      for (const call of calls) call.answer?.();
      return { index: calls.length, at: Date.now() };
    },
    sentSince: (since: { index: number; at: number }, which: (call: Call) => boolean) =>
      calls.slice(since.index).filter(which).map((call) => call.at - since.at),
  };
}
