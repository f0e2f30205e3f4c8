import { afterEach, describe, expect, it, vi } from 'vitest';
import { claim } from '../../shared/sdk/index.js';
import { holdingVigil, useFakeSdkTimers } from '../support/holding-vigil.js';

/**
 * The agent beats just after each checkpoint request opens, on the wall clock (Vigil opens them every
 * interval from the claim). When that clock jumped ahead (a machine waking from sleep, an NTP step), it
 * beat once for every opening it had slept through, one after another as fast as Vigil answered: 2,880
 * beats after 8 hours at a 10 s interval. The openings slept through are past: one beat stands for them.
 */
describe("an agent whose wall clock jumps ahead", () => {
  afterEach(() => {
    vi.useRealTimers();
    vi.unstubAllGlobals();
  });

  const HOUR = 3_600_000;
  const iso = (ms: number) => new Date(ms).toISOString();

  it('beats once for the checkpoint openings it slept through, then at each opening again', async () => {
    // Prepare: checkpoint requests every 10 s, beats every 5 s
    useFakeSdkTimers();
    const vigil = holdingVigil(({ path }) =>
      path.endsWith('/claims')
        ? { itemId: 'item-1', attempt: 1, token: 'tok', input: null, deadlineAt: iso(24 * HOUR), commands: [], checkpointIntervalSeconds: 10, heartbeatIntervalSeconds: 5, lastCheckpoint: null }
        : { action: 'continue', deadlineAt: iso(24 * HOUR) },
    );
    const attempt = await claim({ endpoint: vigil.endpoint }, 'pool-1', 'agent-a');
    if (!attempt) throw new Error('nothing claimed');
    // Act: the wall clock jumps 8 hours ahead; then 21 s pass
    vi.setSystemTime(Date.now() + 8 * HOUR);
    const jumpedAt = Date.now();
    await vi.advanceTimersByTimeAsync(21_000);
    attempt.stop();
    // Assess: the cadence's 4 beats and one for the openings slept through (without the fix: 2,885)
    const beats = vigil.calls.filter((call) => call.path.endsWith('/heartbeat') && call.at >= jumpedAt);
    expect(beats.map((beat) => beat.at - jumpedAt)).toEqual([5_000, 10_000, 10_250, 15_000, 20_000, 20_250]);
  });
});
