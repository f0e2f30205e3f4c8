import { afterEach, describe, expect, it, vi } from 'vitest';
import { claim } from '../../shared/sdk/index.js';
import { useFakeSdkTimers } from '../support/holding-vigil.js';

/**
 * A heartbeat's answer says what Vigil knew when it read the beat, which may be before a later call
 * changed it: a beat in flight while the agent checkpoints, read before the checkpoint and answered
 * after it, still says `checkpoint`. Taken as news, it asked the agent again for the checkpoint it had
 * just given, and the next beat's `continue` then told it the request closed unanswered (a miss).
 * A beat answered after a later call's answer was heard no longer moves the request either way.
 */
describe('a heartbeat answered after a later call does not move the checkpoint request back', () => {
  afterEach(() => {
    vi.useRealTimers();
    vi.unstubAllGlobals();
  });

  const HOUR = 3_600_000;
  const iso = (ms: number) => new Date(ms).toISOString();

  /**
   * A Vigil whose checkpoint request is open (from the start, and again on `open()`) until a checkpoint
   * answers it. Each call is answered as Vigil reads it, at once, but for the heartbeat held by
   * `holdNextHeartbeat()`: its answer, decided when it was read, arrives on `release()`.
   */
  function checkpointingVigil() {
    let requestOpen = true;
    let holdNext = false;
    let held: (() => void) | undefined;
    const paths: string[] = [];
    const answerOf = (path: string): unknown => {
      if (path.endsWith('/claims')) return { itemId: 'item-1', attempt: 1, token: 'tok', input: null, deadlineAt: iso(Date.now() + HOUR), commands: [], checkpointIntervalSeconds: 3_600, lastCheckpoint: null };
      if (path.endsWith('/checkpoints')) return (requestOpen = false), {};
      return { action: requestOpen ? 'checkpoint' : 'continue', deadlineAt: iso(Date.now() + HOUR) };
    };
    vi.stubGlobal('fetch', (url: string | URL) => {
      const path = new URL(String(url)).pathname;
      paths.push(path);
      const response = new Response(JSON.stringify(answerOf(path)), { status: 200, headers: { 'content-type': 'application/json' } });
      if (!holdNext || !path.endsWith('/heartbeat')) return Promise.resolve(response);
      holdNext = false;
      return new Promise<Response>((resolve) => (held = () => resolve(response)));
    });
    return {
      endpoint: 'https://vigil.example',
      heartbeats: () => paths.filter((path) => path.endsWith('/heartbeat')).length,
      holdNextHeartbeat: () => void (holdNext = true),
      open: () => void (requestOpen = true),
      release: () => held?.(),
    };
  }

  it('a beat Vigil read before the checkpoint, answered after it, neither asks for the checkpoint again nor reports the request closed unanswered', async () => {
    // Prepare: a beat every second; the request is open from the start
    useFakeSdkTimers();
    const vigil = checkpointingVigil();
    const attempt = await claim({ endpoint: vigil.endpoint, heartbeatIntervalMs: 1_000 }, 'pool-1', 'agent-a');
    if (!attempt) throw new Error('nothing claimed');
    let requested = 0;
    let closed = 0;
    attempt.onCheckpointRequested(() => void requested++);
    attempt.onCheckpointRequestClosed(() => void closed++);
    await vi.advanceTimersByTimeAsync(1_000);
    expect(requested, 'the first beat hears the request').toBe(1);
    // Act: the next beat is read while the request is open, and its answer is slow; meanwhile the agent checkpoints
    vigil.holdNextHeartbeat();
    await vi.advanceTimersByTimeAsync(1_000);
    await attempt.checkpoint({ done: 3 });
    vigil.release();
    await vi.advanceTimersByTimeAsync(3_000);
    const beats = vigil.heartbeats();
    attempt.stop();
    // Assess: one request, answered: asked for once, never reported closed unanswered
    expect(beats).toBe(5);
    expect(requested).toBe(1);
    expect(closed).toBe(0);
  });

  it("the agent's own heartbeat, read before a request opened and answered after a beat heard it, does not report it closed", async () => {
    // Prepare: a beat every second; no request open
    useFakeSdkTimers();
    const vigil = checkpointingVigil();
    const attempt = await claim({ endpoint: vigil.endpoint, heartbeatIntervalMs: 1_000 }, 'pool-1', 'agent-a');
    if (!attempt) throw new Error('nothing claimed');
    let requested = 0;
    let closed = 0;
    attempt.onCheckpointRequested(() => void requested++);
    attempt.onCheckpointRequestClosed(() => void closed++);
    await attempt.checkpoint({ done: 1 });
    await vi.advanceTimersByTimeAsync(500);
    // Act: the agent's own heartbeat() is read before the request opens, and its answer is slow; the
    // request opens, the beat at 1 s hears it, then the heartbeat's answer arrives
    vigil.holdNextHeartbeat();
    const own = attempt.heartbeat();
    vigil.open();
    await vi.advanceTimersByTimeAsync(500);
    expect(requested, 'the beat at 1 s hears the request').toBe(1);
    vigil.release();
    await own;
    await vi.advanceTimersByTimeAsync(2_000);
    attempt.stop();
    // Assess: the request is still open, asked for once
    expect(requested).toBe(1);
    expect(closed).toBe(0);
  });
});
