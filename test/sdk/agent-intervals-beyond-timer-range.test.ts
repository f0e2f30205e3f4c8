import { describe, expect, it } from 'vitest';
import { claim } from '../../shared/sdk/agent.js';
import { countCalls, iso, useFakeVigil } from '../support/fake-vigil.js';

/**
 * Proves that an agent heartbeats at its own pace when its checkpoint interval or heartbeat interval
 * is longer than Node's setTimeout can wait (2^31 − 1 ms, about 24.8 days). A pool may set
 * `checkpoint_interval_secs` up to one year (contract: durations up to 31,536,000 s), and a user who
 * wants no checkpoints sets it large; `vigil run --heartbeat S` takes any S. Such a timer fires after
 * 1 ms (TimeoutOverflowWarning): the beat armed just after each checkpoint request opens
 * (`beatAtRequest`) re-armed itself the same way, and the agent heartbeat every millisecond.
 */
describe('an agent whose intervals are longer than setTimeout can wait', () => {
  const vigil = useFakeVigil();

  /** A fake Vigil that hands out one item with a one-year checkpoint interval (the largest a pool accepts). */
  const oneYearCheckpoints = () =>
    vigil.fakeVigil((_method, path) => {
      if (path.endsWith('/claims')) {
        return {
          status: 200,
          body: {
            itemId: 'item-1', attempt: 1, token: 'tok', input: null, deadlineAt: iso(Date.now() + 3_600_000),
            commands: [], checkpointIntervalSeconds: 31_536_000, lastCheckpoint: null,
          },
        };
      }
      if (path.endsWith('/heartbeat')) return { status: 200, body: { action: 'continue', deadlineAt: iso(Date.now() + 3_600_000) } };
      return { status: 200, body: {} };
    });

  it('a one-year checkpoint interval: it heartbeats at its heartbeat interval, not in a tight loop', async () => {
    // Prepare
    const fake = await oneYearCheckpoints();
    const attempt = await claim({ endpoint: fake.url, heartbeatIntervalMs: 5_000 }, 'pool-1', 'agent-a');
    if (!attempt) throw new Error('nothing claimed');
    // Act: one second passes (the 5 s heartbeat has not come due yet)
    await new Promise((resolve) => setTimeout(resolve, 1_000));
    attempt.stop();
    // Assess: no heartbeat is due within the first second; a tight loop sends hundreds
    expect(countCalls(fake, 'POST', '/heartbeat')).toBeLessThanOrEqual(1);
  });

  it('a 30-day heartbeat interval (vigil run --heartbeat 2592000): it does not heartbeat in a tight loop', async () => {
    // Prepare
    const fake = await oneYearCheckpoints();
    const attempt = await claim({ endpoint: fake.url, heartbeatIntervalMs: 2_592_000_000 }, 'pool-1', 'agent-a');
    if (!attempt) throw new Error('nothing claimed');
    // Act
    await new Promise((resolve) => setTimeout(resolve, 1_000));
    attempt.stop();
    // Assess
    expect(countCalls(fake, 'POST', '/heartbeat')).toBeLessThanOrEqual(1);
  });
});
