import { afterEach, describe, expect, it, vi } from 'vitest';
import { claim } from '../../shared/sdk/index.js';
import { holdingVigil, useFakeSdkTimers } from '../support/holding-vigil.js';

/**
 * The claim answer names the cadence the pool needs (`heartbeatIntervalSeconds`: a third of the lesser
 * of its cleanup grace period and checkpoint timeout), so a stop or a checkpoint collection is heard
 * with time left to act. The SDK (and `vigil run` on it) beat every 5 s whatever the pool: too slow for
 * a 3 s grace period, three times the calls a default pool needs. It now beats at the pool's cadence
 * unless the agent names its own, warns once when that is slower, and beats every 5 s as before
 * against a Vigil that does not say.
 */
describe("an agent beats at its pool's cadence", () => {
  afterEach(() => {
    vi.useRealTimers();
    vi.unstubAllGlobals();
  });

  const HOUR = 3_600_000;
  const iso = (ms: number) => new Date(ms).toISOString();

  /** A Vigil whose claim answers `cadence` (left out when undefined, as an older Vigil does); no checkpoint request within the test. */
  function vigilAnswering(heartbeatIntervalSeconds: number | undefined) {
    useFakeSdkTimers();
    return holdingVigil(({ path }) =>
      path.endsWith('/claims')
        ? {
            itemId: 'item-1', attempt: 1, token: 'tok', input: null, deadlineAt: iso(Date.now() + HOUR), commands: [],
            checkpointIntervalSeconds: 3_600, ...(heartbeatIntervalSeconds !== undefined ? { heartbeatIntervalSeconds } : {}), lastCheckpoint: null,
          }
        : { action: 'continue', deadlineAt: iso(Date.now() + HOUR) },
    );
  }

  /** When each heartbeat went over `forMs` from the claim, and the warnings given. */
  async function beatsOver(vigil: ReturnType<typeof holdingVigil>, poolId: string, options: { heartbeatIntervalMs?: number }, forMs: number) {
    const warnings: string[] = [];
    const attempt = await claim({ endpoint: vigil.endpoint, ...options, onWarning: (message) => warnings.push(message) }, poolId, 'agent-a');
    if (!attempt) throw new Error('nothing claimed');
    await vi.advanceTimersByTimeAsync(forMs);
    attempt.stop();
    return { at: vigil.calls.filter((call) => call.path.endsWith('/heartbeat')).map((call) => call.at), warnings };
  }

  it('without an interval of its own it beats at the cadence the claim answers (2 s here), and warns of nothing', async () => {
    // Prepare
    const vigil = vigilAnswering(2);
    // Act
    const { at, warnings } = await beatsOver(vigil, 'pool-cadence', {}, 10_000);
    // Assess
    expect(at).toEqual([2_000, 4_000, 6_000, 8_000, 10_000]);
    expect(warnings).toEqual([]);
  });

  it('an interval the agent names, faster than the pool needs, is kept without a warning', async () => {
    // Prepare
    const vigil = vigilAnswering(2);
    // Act
    const { at, warnings } = await beatsOver(vigil, 'pool-faster', { heartbeatIntervalMs: 1_500 }, 6_000);
    // Assess
    expect(at).toEqual([1_500, 3_000, 4_500, 6_000]);
    expect(warnings).toEqual([]);
  });

  it('an interval the agent names, slower than the pool needs, is kept, with one warning for the pool however many items it claims', async () => {
    // Prepare
    const vigil = vigilAnswering(2);
    // Act: two items of the same pool, one after the other
    const first = await beatsOver(vigil, 'pool-slower', { heartbeatIntervalMs: 5_000 }, 10_000);
    const second = await beatsOver(vigil, 'pool-slower', { heartbeatIntervalMs: 5_000 }, 10_000);
    // Assess
    expect(first.at).toEqual([5_000, 10_000]);
    expect(first.warnings).toHaveLength(1);
    expect(first.warnings[0]).toMatch(/pool-slower.*every 5 s, slower than the 2 s its pool asks for.*terminate.*checkpoint collection.*too late/);
    expect(second.warnings).toEqual([]);
  });

  it('against a Vigil whose claim does not name a cadence it beats every 5 s, as before', async () => {
    // Prepare
    const vigil = vigilAnswering(undefined);
    // Act
    const { at, warnings } = await beatsOver(vigil, 'pool-old-vigil', {}, 20_000);
    // Assess
    expect(at).toEqual([5_000, 10_000, 15_000, 20_000]);
    expect(warnings).toEqual([]);
  });
});
