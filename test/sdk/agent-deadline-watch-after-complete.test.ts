import { describe, expect, it } from 'vitest';
import { claim } from '../../shared/sdk/index.js';
import { claimedReply, errorReply, iso, useFakeVigil } from '../support/fake-vigil.js';
import { pollUntil } from '../support/poll.js';

/**
 * A review finding (shared/sdk/deadline-watch.ts): `complete`, `terminated` and `stop` cleared the
 * deadline watch's timer, but a heartbeat answer still in flight re-armed it (`rearm()` only checked
 * the attempt's signal, which completing does not abort). At the deadline the finished attempt sent
 * another heartbeat and, refused, aborted its own signal; `vigil run --pool` left one such timer and
 * stray call per item. The watch now has a stopped state that nothing re-arms.
 */
describe('agent SDK: the deadline watch after the attempt completed', () => {
  const vigil = useFakeVigil();

  it('a heartbeat answered after complete() does not re-arm the watch: no heartbeat is sent after complete', async () => {
    // Prepare: deadline 2 s away; heartbeats answered 400 ms late while the attempt runs, 409 once it completed
    const deadline = Date.now() + 2_000;
    let completedAt: number | undefined;
    const fake = await vigil.fakeVigil((_method, path) => {
      if (path.endsWith('/claims')) return claimedReply('item-1', deadline);
      if (path.endsWith('/complete')) return (completedAt = Date.now()), { status: 200, body: { state: 'succeeded' } };
      if (path.endsWith('/heartbeat')) {
        return completedAt === undefined
          ? { status: 200, body: { action: 'continue', deadlineAt: iso(deadline) }, delayMs: 400 }
          : errorReply(409, 'stale_attempt', 'attempt 1 of item-1 is over');
      }
      return { status: 404 };
    });
    const attempt = await claim({ endpoint: fake.url, heartbeatIntervalMs: 300, retry: { retries: 0 } }, 'pool-1', 'agent-a');
    if (!attempt) throw new Error('nothing claimed');
    // Act: complete while the first heartbeat is in flight (its answer comes 400 ms late)
    await pollUntil(async () => (fake.seen.some((s) => s.path.endsWith('/heartbeat')) ? true : undefined), { what: 'a first heartbeat', timeoutMs: 5_000, intervalMs: 10 });
    await attempt.complete('succeeded');
    // Wait past the deadline plus the watch's confirm window
    await new Promise((resolve) => setTimeout(resolve, deadline - Date.now() + 2_000));
    // Assess
    const afterComplete = fake.seen.filter((s) => s.path.endsWith('/heartbeat') && s.at > (completedAt ?? Infinity));
    expect(afterComplete.map((s) => s.at - deadline), 'heartbeats sent (ms after the deadline) by an attempt that had already completed').toEqual([]);
    expect(attempt.signal.aborted, 'a completed attempt was later aborted by its deadline watch').toBe(false);
  }, 20_000);
});
