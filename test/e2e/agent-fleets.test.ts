import { randomUUID } from 'node:crypto';
import { beforeAll, describe, it } from 'vitest';
import { PoolClient, type ItemView } from '../support/pool-client.js';
import { VigilClient, ok } from '../support/vigil-client.js';
import { advanceUntil, ms, useVigilProcess } from './e2e-support.js';

/**
 * Agent fleets on `npm start -- --virtual-clock`: each test advances time itself (so they run one after
 * the other) and the agent timeouts of a second or less end at their exact instants.
 */
const vigil = useVigilProcess({ regions: ['us-east-1'], virtualClock: true });
let pools: PoolClient;
let client: VigilClient;
const run = randomUUID().slice(0, 8);

beforeAll(() => {
  pools = new PoolClient(vigil.regionUrl());
  client = new VigilClient(vigil.regionUrl());
});

/** Advances virtual time until the item satisfies `until`. */
async function waitForItem(poolId: string, itemId: string, until: (item: ItemView) => boolean): Promise<ItemView> {
  return advanceUntil(
    client,
    async () => {
      const item = (await pools.getItem(poolId, itemId)).body;
      return until(item) ? item : undefined;
    },
    { what: `item ${poolId}/${itemId}` },
  );
}

const advanceUntilValue = <T>(what: string, probe: () => Promise<T | undefined>) => advanceUntil(client, probe, { what });

async function eventsOf(poolId: string, detailType: string) {
  const { events } = ok(await client.events());
  return events.filter((event) => event.detailType === detailType && event.detail['poolId'] === poolId);
}

const shortPool = (poolId: string, config: Record<string, unknown>, itemIds = ['item-1']) => ({
  poolId,
  items: itemIds.map((itemId) => ({ itemId, input: { itemId } })),
  config,
});

describe('agent fleets on a real `npm start`', () => {
  it('a shell command that overruns is terminated and its item lands in the DLQ with its timeout type', async ({ expect }) => {
    // Prepare
    const poolId = `dlq-${run}`;
    expect(
      (await pools.createPool(shortPool(poolId, { agent_template: [{ shell: 'sleep 60' }], timeout_config: { timeout_policy: 'per_command', cleanup_grace_period_secs: 1, command_timeouts: { shell: 1 } } }))).status,
    ).toBe(201);
    const attempt = await pools.claim(poolId, 'agent-1');
    if (!attempt) throw new Error('nothing claimed');
    const started = await pools.agent<{ deadlineAt: string }>(attempt, 'commands/0/start', { type: 'shell' });
    // Act: the agent keeps heartbeating, the command never finishes
    await client.advanceClockTo(ms(started.body.deadlineAt) - 1);
    const justBefore = (await pools.heartbeat(attempt)).body;
    await client.advanceClockTo(ms(started.body.deadlineAt));
    const told = (await pools.heartbeat(attempt)).body;
    const item = await waitForItem(poolId, 'item-1', (i) => i.state === 'dlq');
    // Assess: told to terminate exactly at the command's deadline
    expect(justBefore.action).toBe('continue');
    expect(told.action).toBe('terminate');
    expect(item.history[0]).toMatchObject({ outcome: 'timed_out', resolution: 'force', timeout: { type: 'command', commandIndex: 0, commandType: 'shell', limitSeconds: 1 } });
    expect((await pools.dlq(poolId)).body.items.map((i) => i.itemId)).toEqual(['item-1']);
    const timeouts = await eventsOf(poolId, 'TimeoutOccurred');
    expect(new Set(timeouts.map((event) => event.detail['attempt']))).toEqual(new Set([1]));
    expect(timeouts[0]?.detail).toMatchObject({ timeoutType: 'command', commandType: 'shell' });
    expect((await eventsOf(poolId, 'TimeoutResolved'))[0]?.detail).toMatchObject({ resolution: 'force' });
  });

  it('skip skips the item; the agent saying terminated in time resolves graceful; the pool completes', async ({ expect }) => {
    // Prepare
    const poolId = `skip-${run}`;
    await pools.createPool(shortPool(poolId, { agent_timeout_secs: 1, timeout_config: { timeout_action: 'skip', cleanup_grace_period_secs: 5 } }));
    const attempt = await pools.claim(poolId, 'agent-1');
    if (!attempt) throw new Error('nothing claimed');
    // Act
    await advanceUntilValue('terminate', async () => ((await pools.heartbeat(attempt)).body.action === 'terminate' ? true : undefined));
    const stopped = await pools.agent(attempt, 'terminated', { cleanup: 'completed', partialResult: { half: true } });
    // Assess
    expect(stopped.status).toBe(200);
    const item = (await pools.getItem(poolId, 'item-1')).body;
    expect(item).toMatchObject({ state: 'skipped', partialResult: { half: true } });
    expect(item.history[0]).toMatchObject({ outcome: 'timed_out', resolution: 'graceful' });
    const pool = await advanceUntilValue('pool completed', async () => {
      const answer = (await pools.getPool(poolId)).body;
      return answer.status === 'COMPLETED' ? answer : undefined;
    });
    expect(pool.counts).toMatchObject({ skipped: 1, available: 0, running: 0 });
  });

  it('fail fails the pool at the timeout and tells every running agent to terminate', async ({ expect }) => {
    // Prepare
    const poolId = `fail-${run}`;
    await pools.createPool(shortPool(poolId, { agent_timeout_secs: 1, timeout_config: { timeout_action: 'fail', cleanup_grace_period_secs: 30 } }, ['a', 'b']));
    const first = await pools.claim(poolId, 'agent-1');
    if (!first) throw new Error('nothing claimed');
    await client.advanceClock(500);
    const second = await pools.claim(poolId, 'agent-2');
    if (!second) throw new Error('nothing claimed');
    // Act: to 1 ms before the first attempt's deadline, then to it
    await client.advanceClockTo(ms(first.deadlineAt ?? undefined) - 1);
    const justBefore = (await pools.getPool(poolId)).body;
    await client.advanceClockTo(ms(first.deadlineAt ?? undefined));
    const pool = (await pools.getPool(poolId)).body;
    // Assess
    expect(justBefore.status).toBe('RUNNING');
    expect(pool.status).toBe('FAILED');
    expect((await pools.heartbeat(second)).body.action).toBe('terminate');
    expect((await pools.claim(poolId, 'agent-3').catch((error: Error) => error.message))).toMatch(/409/);
    expect((await eventsOf(poolId, 'PoolFinished'))[0]?.detail).toMatchObject({ status: 'FAILED' });
  });

  it('an agent that stops checkpointing stalls and its item returns to the pool with its last checkpoint', async ({ expect }) => {
    // Prepare
    const poolId = `stall-${run}`;
    await pools.createPool(
      shortPool(poolId, { agent_timeout_secs: 600, checkpoint_interval_secs: 1, checkpoint_timeout_secs: 0.5, stall_threshold: 2, timeout_config: { cleanup_grace_period_secs: 0.5 } }),
    );
    const attempt = await pools.claim(poolId, 'agent-1');
    if (!attempt) throw new Error('nothing claimed');
    expect((await pools.agent(attempt, 'checkpoints', { state: { step: 1 }, progress: 0.1 })).status).toBe(200);
    // Act: silence
    const item = await waitForItem(poolId, 'item-1', (i) => i.state === 'available' && i.attempt === 1);
    const next = await pools.claim(poolId, 'agent-2');
    // Assess
    expect(item).toMatchObject({ reason: 'agent_stalled', timeoutCount: 0 });
    expect(item.history[0]).toMatchObject({ outcome: 'stalled' });
    expect(next).toMatchObject({ itemId: 'item-1', attempt: 2 });
    expect(next?.lastCheckpoint).toMatchObject({ state: { step: 1 } });
    // Events are at least once: count the stalls of attempt 1, not deliveries.
    const stalls = (await eventsOf(poolId, 'AgentStalled')).filter((event) => event.detail['attempt'] === 1);
    expect(new Set(stalls.map((event) => JSON.stringify(event.detail))).size).toBe(1);
    expect((await eventsOf(poolId, 'CheckpointMissed')).length).toBeGreaterThanOrEqual(2);
  });

  it('the N-th timeout creates a question; answering it applies the choice; a second answer is refused', async ({ expect }) => {
    // Prepare
    const poolId = `escalate-${run}`;
    await pools.createPool(shortPool(poolId, { agent_timeout_secs: 0.5, timeout_escalation: 2, timeout_config: { timeout_action: 'retry', cleanup_grace_period_secs: 0 } }));
    for (let n = 1; n <= 2; n++) {
      const attempt = await advanceUntilValue(`claim ${n}`, () => pools.claim(poolId, `agent-${n}`));
      expect(attempt.attempt).toBe(n);
      await waitForItem(poolId, 'item-1', (i) => i.state !== 'running');
    }
    // Act
    const question = await advanceUntilValue('escalation', async () => (await pools.escalations(poolId)).body.escalations[0]);
    const answer = await pools.request('POST', `/escalations/${question.escalationId}/answer`, { option: 'increase_timeout', timeoutSeconds: 120 });
    const again = await pools.request('POST', `/escalations/${question.escalationId}/answer`, { option: 'skip' });
    // Assess
    expect(question).toMatchObject({ itemId: 'item-1', status: 'pending', options: ['split', 'clarify', 'increase_timeout', 'skip'] });
    expect(answer.status).toBe(200);
    expect(again.status).toBe(409);
    expect((await pools.getItem(poolId, 'item-1')).body).toMatchObject({ state: 'available', timeoutCount: 2 });
    const reclaimed = await pools.claim(poolId, 'agent-3');
    expect(ms(reclaimed?.deadlineAt ?? undefined) - ok(await client.clock()).now).toBe(120_000);
    expect(new Set((await eventsOf(poolId, 'TaskEscalated')).map((event) => event.detail['escalationId']))).toEqual(new Set([question.escalationId]));
  });

  it('a late result from an old attempt is refused with stale_attempt and shown in history', async ({ expect }) => {
    // Prepare
    const poolId = `stale-${run}`;
    await pools.createPool(shortPool(poolId, { agent_timeout_secs: 0.5, timeout_config: { timeout_action: 'retry', cleanup_grace_period_secs: 0 } }));
    const old = await pools.claim(poolId, 'agent-old');
    if (!old) throw new Error('nothing claimed');
    const fresh = await advanceUntilValue('second claim', () => pools.claim(poolId, 'agent-new'));
    // Act
    const late = await pools.agent(old, 'complete', { outcome: 'succeeded', result: { answer: 42 } });
    // Assess
    expect(fresh.attempt).toBe(2);
    expect(late.status).toBe(409);
    expect(late.body).toMatchObject({ error: { code: 'stale_attempt' } });
    const item = (await pools.getItem(poolId, 'item-1')).body;
    expect(item.state).toBe('running');
    expect(item.history[0]?.lateResults?.[0]).toMatchObject({ call: 'complete', result: { outcome: 'succeeded', result: { answer: 42 } } });
  });

  it("a claim answers the heartbeat cadence its pool needs: a third of the lesser of grace period and checkpoint timeout, 10 s by default, at most half the checkpoint interval", async ({ expect }) => {
    // Prepare: a default pool, one with a 6 s grace period, one checkpointing every 1.5 s
    const configs = { default: {}, grace: { timeout_config: { cleanup_grace_period_secs: 6 } }, checkpoints: { checkpoint_interval_secs: 1.5, checkpoint_timeout_secs: 1 } };
    for (const [name, config] of Object.entries(configs)) await pools.createPool(shortPool(`cadence-${name}-${run}`, config));
    // Act
    const answers = await Promise.all(Object.keys(configs).map((name) => pools.claim(`cadence-${name}-${run}`, 'agent-1')));
    // Assess: the cadence beside every field the contract names, unchanged
    expect(answers.map((answer) => answer?.heartbeatIntervalSeconds)).toEqual([10, 2, 0.75]);
    expect(Object.keys(answers[0] ?? {}).sort()).toEqual(
      ['itemId', 'attempt', 'token', 'input', 'deadlineAt', 'commands', 'checkpointIntervalSeconds', 'heartbeatIntervalSeconds', 'lastCheckpoint', 'poolId', 'agentId'].sort(),
    );
    expect(answers[0]).toMatchObject({ checkpointIntervalSeconds: 300, commands: [], lastCheckpoint: null });
  });

  it('refuses a bad config whole with every bad field and the allowed values', async ({ expect }) => {
    // Act
    const answer = await pools.createPool({ items: [{ itemId: 'a' }], config: { timeout_config: { timeout_action: 'explode' }, nope: 1 } });
    // Assess
    expect(answer.status).toBe(400);
    expect(answer.body).toMatchObject({
      error: { code: 'invalid_request', details: [{ field: 'config.timeout_config.timeout_action', allowed: ['dlq', 'skip', 'fail', 'graceful_terminate', 'retry'] }, { field: 'config.nope' }] },
    });
  });
});
