import { afterEach, describe, expect, it, vi } from 'vitest';
import { claim } from '../../shared/sdk/index.js';
import { claimedReply, errorReply, iso, useFakeVigil } from '../support/fake-vigil.js';
import { pollUntil } from '../support/poll.js';
import { useUnhandledRejections } from '../support/unhandled-rejections.js';

/**
 * The README's own `onCheckpointRequested(() => attempt.checkpoint(state))` crashed the agent's process
 * when the checkpoint failed (Vigil unreachable, a refusal): nobody awaited the promise the callback
 * returned, so its rejection was unhandled. A callback that threw made the answered heartbeat reject
 * (a deadline ask then counted Vigil as silent) and kept the callbacks after it from ever hearing of
 * the request. The SDK now contains a callback's throw or rejection and tells it once, as a warning.
 */
describe('a checkpoint callback that fails', () => {
  const vigil = useFakeVigil();
  const unhandled = useUnhandledRejections();

  afterEach(() => {
    vi.restoreAllMocks();
  });

  /** A Vigil that asks for a checkpoint at every beat and refuses every checkpoint (a 500, retried). */
  const checkpointRefusingVigil = () =>
    vigil.fakeVigil((_method, path) => {
      if (path.endsWith('/claims')) return claimedReply('item-1', Date.now() + 60_000);
      if (path.endsWith('/heartbeat')) return { status: 200, body: { action: 'checkpoint', deadlineAt: iso(Date.now() + 60_000) } };
      return errorReply(500, 'internal_error', 'The checkpoint could not be stored.');
    });

  it("the README's callback, whose checkpoint is refused, crashes nothing: it is told once as a warning", async () => {
    // Prepare
    const warnings = vi.spyOn(process, 'emitWarning').mockImplementation(() => undefined);
    const fake = await checkpointRefusingVigil();
    const attempt = await claim({ endpoint: fake.url, heartbeatIntervalMs: 60_000, retry: { baseDelayMs: 1, maxDelayMs: 5 } }, 'pool-1', 'agent-a');
    if (!attempt) throw new Error('nothing claimed');
    attempt.onCheckpointRequested(() => attempt.checkpoint({ cursor: 1 }, 0.5));
    // Act
    const answer = await attempt.heartbeat();
    await pollUntil(async () => (warnings.mock.calls.length > 0 || unhandled.length > 0 ? true : undefined), { what: 'the failed checkpoint to be told', timeoutMs: 10_000, intervalMs: 20 });
    attempt.stop();
    // Assess
    expect(answer.action).toBe('checkpoint');
    expect(unhandled).toEqual([]);
    expect(warnings).toHaveBeenCalledTimes(1);
    expect(String(warnings.mock.calls[0]?.[0])).toContain('onCheckpointRequested');
  });

  it('a callback that throws leaves the answered heartbeat answered, and the callbacks after it still hear the request', async () => {
    // Prepare
    const warnings = vi.spyOn(process, 'emitWarning').mockImplementation(() => undefined);
    const fake = await checkpointRefusingVigil();
    const attempt = await claim({ endpoint: fake.url, heartbeatIntervalMs: 60_000 }, 'pool-1', 'agent-a');
    if (!attempt) throw new Error('nothing claimed');
    let heard = 0;
    attempt.onCheckpointRequested(() => {
      throw new Error('a bug in the agent’s own callback');
    });
    attempt.onCheckpointRequested(() => void heard++);
    // Act
    const answer = await attempt.heartbeat().catch((error: unknown) => error);
    attempt.stop();
    // Assess
    expect(answer).toMatchObject({ action: 'checkpoint' });
    expect(heard).toBe(1);
    expect(warnings).toHaveBeenCalledTimes(1);
  });
});
