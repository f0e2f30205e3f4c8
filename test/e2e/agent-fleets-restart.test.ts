import { randomUUID } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import { PoolClient } from '../support/pool-client.js';
import { VigilClient } from '../support/vigil-client.js';
import { ms, useVigilProcess } from './e2e-support.js';

/**
 * `kill -9` and a restart of `npm start -- --virtual-clock` with agent attempts in flight: time moves
 * only when the test advances it, so the restart eats into no deadline or grace period, and both end
 * at their exact instants after it.
 */
const AGENT_TIMEOUT_SECONDS = 14;
const GRACE_SECONDS = 8;

const vigil = useVigilProcess({ regions: ['us-east-1'], virtualClock: true });
const run = randomUUID().slice(0, 8);

describe('kill -9 and a restart with the same data dir (agent fleets)', () => {
  it("resumes an attempt's agent deadline and another attempt's grace period, each ending at its instant", async () => {
    // Prepare: one attempt whose deadline is after the restart, one whose grace period runs through the crash
    let pools = new PoolClient(vigil.regionUrl());
    const deadlinePool = `restart-deadline-${run}`;
    const gracePool = `restart-grace-${run}`;
    const item = [{ itemId: 'item-1', input: {} }];
    await pools.createPool({ poolId: deadlinePool, items: item, config: { agent_timeout_secs: AGENT_TIMEOUT_SECONDS, timeout_config: { cleanup_grace_period_secs: 0.5 } } });
    await pools.createPool({ poolId: gracePool, items: item, config: { agent_timeout_secs: 0.5, timeout_config: { cleanup_grace_period_secs: GRACE_SECONDS } } });
    const survivor = await pools.claim(deadlinePool, 'agent-1');
    const terminating = await pools.claim(gracePool, 'agent-2');
    if (!survivor || !terminating) throw new Error('nothing claimed');
    await new VigilClient(vigil.regionUrl()).advanceClock(500);
    const told = (await pools.heartbeat(terminating)).body;
    expect(told).toMatchObject({ action: 'terminate' });

    // Act
    await vigil.kill('SIGKILL');
    await vigil.restart();
    pools = new PoolClient(vigil.regionUrl());
    const clock = new VigilClient(vigil.regionUrl());

    // Assess: both attempts are still where they were
    expect((await pools.heartbeat(terminating)).body.action).toBe('terminate');
    expect((await pools.heartbeat(survivor)).body.action).toBe('continue');

    // Assess: the grace period still ends in force exactly at its time, and the item goes to the DLQ
    const terminateBy = ms(told.terminateBy);
    await clock.advanceClockTo(terminateBy - 1);
    const beforeGraceEnds = (await pools.getItem(gracePool, 'item-1')).body;
    await clock.advanceClockTo(terminateBy);
    const dead = (await pools.getItem(gracePool, 'item-1')).body;
    expect(beforeGraceEnds.state).not.toBe('dlq');
    expect(dead.state).toBe('dlq');
    expect(dead.history[0]).toMatchObject({ outcome: 'timed_out', resolution: 'force', timeout: { type: 'agent' } });
    expect(ms((dead.history[0] as { endedAt?: string }).endedAt)).toBe(terminateBy);

    // Assess: the survivor's deadline fires exactly on time
    const deadline = ms(survivor.deadlineAt ?? undefined);
    await clock.advanceClockTo(deadline - 1);
    const beforeDeadline = (await pools.getItem(deadlinePool, 'item-1')).body;
    await clock.advanceClockTo(deadline);
    const timedOut = (await pools.getItem(deadlinePool, 'item-1')).body;
    expect(beforeDeadline.history[0]?.timeout).toBeUndefined();
    expect(timedOut.history[0]?.timeout?.elapsedSeconds).toBe(AGENT_TIMEOUT_SECONDS);
  }, 60_000);
});
