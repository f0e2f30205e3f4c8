import { describe, expect, it } from 'vitest';
import { claim } from '../../shared/sdk/agent.js';
import { countCalls, iso, useFakeVigil } from '../support/fake-vigil.js';

/**
 * Review (time): the agent SDK arms one beat just after each checkpoint request opens
 * (`shared/sdk/agent.ts` beatAtRequest) with `setTimeout(…, claimedAt + n × interval + 250 − now)`.
 * A pool may set `checkpoint_interval_secs` up to one year (contract: any duration up to 31,536,000 s),
 * and a user who wants no checkpoints sets it large. Past 2^31 − 1 ms (24.8 days) Node's setTimeout
 * does not wait: it fires after 1 ms (TimeoutOverflowWarning), and each beat re-arms the next the same
 * way. The agent then heartbeats every millisecond, without waiting for the answers.
 */
describe('an agent of a pool whose checkpoint interval is longer than setTimeout can wait', () => {
  const vigil = useFakeVigil();

  it('heartbeats at its heartbeat interval, not in a tight loop', async () => {
    // Prepare: a claim answer with a one-year checkpoint interval (the largest a pool accepts)
    const fake = await vigil.fakeVigil((_method, path) => {
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
    const attempt = await claim({ endpoint: fake.url, heartbeatIntervalMs: 5_000 }, 'pool-1', 'agent-a');
    if (!attempt) throw new Error('nothing claimed');
    // Act: one second passes (the 5 s heartbeat has not come due yet)
    await new Promise((resolve) => setTimeout(resolve, 1_000));
    attempt.stop();
    // Assess: no heartbeat is due within the first second; a tight loop sends hundreds
    expect(countCalls(fake, 'POST', '/heartbeat')).toBeLessThanOrEqual(1);
  });
});
