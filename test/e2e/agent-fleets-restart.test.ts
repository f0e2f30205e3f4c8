import { randomUUID } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import { pollUntil } from '../support/poll.js';
import { PoolClient, type ItemView } from '../support/pool-client.js';
import { ms, LOOSE_LATENESS_MS, useVigilProcess } from './e2e-support.js';

/** Long enough that the restart (tsx start-up, dynalite reopening its files) ends before these deadlines. */
const AGENT_TIMEOUT_SECONDS = 14;
const GRACE_SECONDS = 8;

const vigil = useVigilProcess({ regions: ['us-east-1'] });
const run = randomUUID().slice(0, 8);

async function waitForItem(pools: PoolClient, poolId: string, until: (item: ItemView) => boolean, timeoutMs: number) {
  let last: ItemView | undefined;
  return pollUntil(
    async () => {
      last = (await pools.getItem(poolId, 'item-1')).body;
      return until(last) ? last : undefined;
    },
    { what: () => `item of ${poolId}; last ${JSON.stringify(last)}\n${vigil.logTail(15)}`, timeoutMs, intervalMs: 50 },
  );
}

describe('kill -9 and a restart with the same data dir (agent fleets)', () => {
  it("resumes an attempt's agent deadline and another attempt's grace period", async () => {
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
    const told = await pollUntil(async () => {
      const answer = (await pools.heartbeat(terminating)).body;
      return answer.action === 'terminate' ? answer : undefined;
    }, { what: () => 'terminate', timeoutMs: 5_000, intervalMs: 50 });

    // Act
    await vigil.kill('SIGKILL');
    await vigil.restart();
    pools = new PoolClient(vigil.regionUrl());

    // Assess: both attempts are still where they were
    expect(Date.now(), 'the restart took longer than the grace period; raise GRACE_SECONDS').toBeLessThan(ms(told.terminateBy));
    expect((await pools.heartbeat(terminating)).body.action).toBe('terminate');
    expect((await pools.heartbeat(survivor)).body.action).toBe('continue');

    // Assess: the grace period still ends in force at its time, and the item goes to the DLQ
    const dead = await waitForItem(pools, gracePool, (i) => i.state === 'dlq', GRACE_SECONDS * 1_000 + 5_000);
    expect(dead.history[0]).toMatchObject({ outcome: 'timed_out', resolution: 'force', timeout: { type: 'agent' } });
    const endedAt = ms((dead.history[0] as { endedAt?: string }).endedAt);
    expect(endedAt - ms(told.terminateBy)).toBeGreaterThanOrEqual(0);
    expect(endedAt - ms(told.terminateBy)).toBeLessThan(LOOSE_LATENESS_MS);

    // Assess: the survivor's deadline fires on time
    expect(Date.now(), 'the grace period outlasted the agent timeout; raise AGENT_TIMEOUT_SECONDS').toBeLessThan(ms(survivor.deadlineAt ?? undefined));
    const timedOut = await waitForItem(pools, deadlinePool, (i) => i.history[0]?.timeout !== undefined, AGENT_TIMEOUT_SECONDS * 1_000 + 5_000);
    expect(timedOut.history[0]?.timeout?.elapsedSeconds).toBeGreaterThanOrEqual(AGENT_TIMEOUT_SECONDS);
    expect(timedOut.history[0]?.timeout?.elapsedSeconds).toBeLessThan(AGENT_TIMEOUT_SECONDS + LOOSE_LATENESS_MS / 1_000);
  }, 60_000);
});
