import { afterEach, describe, expect, it, vi } from 'vitest';
import { claim } from '../../shared/sdk/index.js';
import { holdingVigil, useFakeSdkTimers } from '../support/holding-vigil.js';

/**
 * A claim answer (from a Vigil, or a proxy before it, that is wrong) naming a checkpoint interval of 0
 * or less set the agent's beat just after each checkpoint request to fire at once, again and again:
 * ~900 heartbeats a second, as fast as Vigil answered. A heartbeat interval of 0 or less beat every
 * 100 ms. A cadence that is not a positive number is now taken as not given: the contract's defaults.
 */
describe('a claim answer whose cadence is not a positive number', () => {
  afterEach(() => {
    vi.useRealTimers();
    vi.unstubAllGlobals();
  });

  const iso = (ms: number) => new Date(ms).toISOString();

  for (const seconds of [0, -300]) {
    it(`checkpointIntervalSeconds and heartbeatIntervalSeconds of ${seconds}: the agent beats at the default 5 s, not in a loop`, async () => {
      // Prepare
      useFakeSdkTimers();
      const vigil = holdingVigil(({ path }) =>
        path.endsWith('/claims')
          ? { itemId: 'item-1', attempt: 1, token: 'tok', input: null, deadlineAt: iso(3_600_000), commands: [], checkpointIntervalSeconds: seconds, heartbeatIntervalSeconds: seconds, lastCheckpoint: null }
          : { action: 'continue', deadlineAt: iso(3_600_000) },
      );
      const attempt = await claim({ endpoint: vigil.endpoint }, 'pool-1', 'agent-a');
      if (!attempt) throw new Error('nothing claimed');
      // Act
      await vi.advanceTimersByTimeAsync(10_000);
      attempt.stop();
      // Assess
      expect(vigil.calls.filter((call) => call.path.endsWith('/heartbeat')).map((call) => call.at)).toEqual([5_000, 10_000]);
    });
  }
});
