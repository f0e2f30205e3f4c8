import { describe, expect, it } from 'vitest';
import { handler as createPoolHandler } from '../../../functions/pools/create-pool.js';
import { handler as listEscalationsHandler } from '../../../functions/pools/list-escalations.js';
import { cancelPool } from '../../../shared/app/pools/cancel-pool.js';
import { claimPoolItem } from '../../../shared/app/pools/claim-item.js';
import { answerEscalation, listEscalations } from '../../../shared/app/pools/escalations.js';
import { firePoolTimer } from '../../../shared/app/pools/fire-pool-timer.js';
import { getItem } from '../../../shared/app/pools/get-pool.js';
import { itemTimerId } from '../../../shared/domain/pools/pool-item.js';
import { escalationIdOf } from '../../../shared/domain/pools/resolve-attempt.js';
import { at, T0 } from '../../support/fixtures.js';
import { errorOf, invoke } from '../support/http-events.js';
import { useHttpTestManager } from '../support/test-manager.js';
import { claim, newPool, refusal, send } from './pool-test-support.js';

const iso = (s: number) => new Date(at(s)).toISOString();

describe('pool limits the agent cannot choose, transitions at their due time, repeats answered alike (dynalite)', () => {
  const m = useHttpTestManager();

  // per_command / hybrid: the limit comes from the type the agent claims, not from the template step at that index.
  it('a command started under a type other than its template step keeps the template step\'s limit (hybrid)', async () => {
    // Prepare: step 0 is a shell command (60 s)
    await newPool(m.deps, { agent_timeout_secs: 1000, agent_template: [{ shell: 'validate' }], timeout_config: { timeout_policy: 'hybrid' } });
    const claimed = await claimPoolItem(m.deps, 'p', { agentId: 'a', kind: 'agent' });
    expect(claimed?.commands[0]).toMatchObject({ index: 0, type: 'shell', limitSeconds: 60 });
    const agent = { itemId: 'i-1', attempt: 1, token: claimed!.token, agentId: 'a' };
    // Act: the agent says step 0 is a claude command
    const reply = await send(m.deps, agent, { type: 'command_start', index: 0, commandType: 'claude' });
    // Assess: its deadline is still the shell step's 60 s
    expect(reply).toEqual({ deadlineAt: iso(60) });
  });

  it('starting the same command again does not move its deadline (per_command)', async () => {
    // Prepare
    await newPool(m.deps, { agent_template: [{ shell: 'validate' }], timeout_config: { timeout_policy: 'per_command' } });
    const agent = await claim(m.deps, 'a');
    await send(m.deps, agent, { type: 'command_start', index: 0, commandType: 'shell' });
    // Act: 10 s before its 60 s limit the agent "starts" command 0 again
    m.clock.set(at(50));
    await send(m.deps, agent, { type: 'command_start', index: 0, commandType: 'shell' });
    // Assess: at 61 s the command has run past its limit
    m.clock.set(at(61));
    expect(await send(m.deps, agent, { type: 'heartbeat' })).toMatchObject({ action: 'terminate' });
  });

  it('a finished command started again after a later one is refused (command_out_of_order): no agent restarts its way past a limit', async () => {
    // Prepare: two shell steps of 60 s each, no agent deadline; command 0 finishes, command 1 starts
    await newPool(m.deps, { agent_template: [{ shell: 'a' }, { shell: 'b' }], timeout_config: { timeout_policy: 'per_command' } });
    const agent = await claim(m.deps, 'a');
    await send(m.deps, agent, { type: 'command_start', index: 0, commandType: 'shell' });
    m.clock.set(at(40));
    await send(m.deps, agent, { type: 'command_finish', index: 0, outcome: 'succeeded' });
    m.clock.set(at(50));
    await send(m.deps, agent, { type: 'command_start', index: 1, commandType: 'shell' });
    // Act: just before command 1's limit, the agent "starts" command 0 again
    m.clock.set(at(105));
    const refused = await refusal(send(m.deps, agent, { type: 'command_start', index: 0, commandType: 'shell' }));
    // Assess: command 1 still times out at 110 s
    expect(refused).toMatchObject({ code: 'command_out_of_order' });
    m.clock.set(at(111));
    expect(await send(m.deps, agent, { type: 'heartbeat' })).toMatchObject({ action: 'terminate' });
  });

  // Audit: the refusal said "was already started" of a command the agent had skipped, which it never started.
  it('a command skipped by starting a later one is refused (command_out_of_order) with a message that does not claim it was started', async () => {
    // Prepare: the agent starts command 2 first
    await newPool(m.deps, { agent_template: [{ shell: 'a' }, { shell: 'b' }, { shell: 'c' }] });
    const agent = await claim(m.deps, 'a');
    await send(m.deps, agent, { type: 'command_start', index: 2, commandType: 'shell' });
    // Act
    const refused = await refusal(send(m.deps, agent, { type: 'command_start', index: 0, commandType: 'shell' }));
    // Assess
    expect(refused).toMatchObject({ code: 'command_out_of_order' });
    expect((refused as Error).message).toContain('or a later command started before it');
    expect((refused as Error).message).toContain('the next may be 3 or later');
  });

  it('a finish of a command never started is refused (command_not_started); a repeat of a finish is answered alike', async () => {
    // Prepare
    await newPool(m.deps, { agent_template: [{ shell: 'a' }, { shell: 'b' }] });
    const agent = await claim(m.deps, 'a');
    await send(m.deps, agent, { type: 'command_start', index: 0, commandType: 'shell' });
    await send(m.deps, agent, { type: 'command_finish', index: 0, outcome: 'succeeded' });
    // Act
    const repeated = await send(m.deps, agent, { type: 'command_finish', index: 0, outcome: 'succeeded' });
    const neverStarted = await refusal(send(m.deps, agent, { type: 'command_finish', index: 1, outcome: 'succeeded' }));
    // Assess
    expect(repeated).toMatchObject({ state: 'running' });
    expect(neverStarted).toMatchObject({ code: 'command_not_started' });
  });

  it('an increase_timeout answer to repeated command timeouts lets the next attempt run that command past its old limit', async () => {
    // Prepare: the shell command (60 s) times out; escalated at the first timeout
    await newPool(m.deps, {
      agent_template: [{ shell: 'validate' }],
      timeout_escalation: 1,
      timeout_config: { timeout_policy: 'per_command', cleanup_grace_period_secs: 5 },
    });
    const first = await claim(m.deps, 'a');
    await send(m.deps, first, { type: 'command_start', index: 0, commandType: 'shell' });
    m.clock.set(at(61));
    expect(await send(m.deps, first, { type: 'heartbeat' })).toMatchObject({ action: 'terminate' });
    await send(m.deps, first, { type: 'terminated', cleanup: 'completed' });
    expect((await getItem(m.deps, 'p', 'i-1')).state).toBe('escalated');
    // Act: the human gives the task 600 s
    await answerEscalation(m.deps, escalationIdOf('p', 'i-1', 1), { option: 'increase_timeout', timeoutSeconds: 600 });
    m.clock.set(at(100));
    const second = await claim(m.deps, 'b');
    await send(m.deps, second, { type: 'command_start', index: 0, commandType: 'shell' });
    // Assess: 100 s into the command, well within the 600 s granted, the agent may go on
    m.clock.set(at(200));
    expect(await send(m.deps, second, { type: 'heartbeat' })).toMatchObject({ action: 'continue' });
  });

  it('increase_timeout that would cut the task is refused with the item\'s current limit and changes nothing; a higher one applies (a review finding)', async () => {
    // Prepare: hybrid [claude 300 s, shell 60 s] makes a 360 s attempt; the shell step times out; escalated at once
    await newPool(m.deps, {
      agent_template: [{ claude: '/analyze ${item}' }, { shell: 'validate ${item.id}' }],
      timeout_escalation: 1,
      timeout_config: { timeout_policy: 'hybrid', cleanup_grace_period_secs: 5 },
    });
    const first = await claim(m.deps, 'a');
    await send(m.deps, first, { type: 'command_start', index: 0, commandType: 'claude' });
    m.clock.set(at(200));
    await send(m.deps, first, { type: 'command_finish', index: 0, outcome: 'succeeded' });
    await send(m.deps, first, { type: 'command_start', index: 1, commandType: 'shell' });
    m.clock.set(at(261));
    expect(await send(m.deps, first, { type: 'heartbeat' })).toMatchObject({ action: 'terminate' });
    await send(m.deps, first, { type: 'terminated', cleanup: 'completed' });
    const escalationId = escalationIdOf('p', 'i-1', 1);
    // Act: the human answers on the scale of the step that failed, then on the attempt's
    const cut = await answerEscalation(m.deps, escalationId, { option: 'increase_timeout', timeoutSeconds: 120 }).catch((error: unknown) => error);
    const unchanged = { item: (await getItem(m.deps, 'p', 'i-1')).state, escalations: (await listEscalations(m.deps, 'p')).escalations.map((e) => e.status) };
    await answerEscalation(m.deps, escalationId, { option: 'increase_timeout', timeoutSeconds: 720 });
    m.clock.set(at(300));
    const second = await claimPoolItem(m.deps, 'p', { agentId: 'b', kind: 'agent' });
    // Assess
    expect(cut).toMatchObject({ code: 'invalid_request', message: expect.stringMatching(/would not raise item 'i-1''s time limit, 360 s .*send more than 360/) });
    expect(unchanged).toEqual({ item: 'escalated', escalations: ['pending'] });
    expect(second?.deadlineAt).toBe(new Date(at(300 + 720)).toISOString());
  });

  it('a silent agent whose deadline and grace period both passed before a late wake-up is dead-lettered at that wake-up', async () => {
    // Prepare: deadline 10 s, grace 5 s; the wake-up due at 10 s is delivered at 16 s (a late timer or the sweep)
    await newPool(m.deps, { agent_timeout_secs: 10, timeout_config: { cleanup_grace_period_secs: 5 } });
    await claim(m.deps, 'a');
    m.clock.set(at(16));
    // Act
    await firePoolTimer(m.deps, { scope: 'pool', jobId: itemTimerId('p', 'i-1'), fenceToken: 1, dueAt: at(10) });
    // Assess: the grace period ended at 15 s, so the attempt is resolved `force` and the item dead-lettered
    const item = await getItem(m.deps, 'p', 'i-1');
    expect(item.state).toBe('dlq');
    expect(item.history[0]).toMatchObject({ outcome: 'timed_out', resolution: 'force', timeout: { type: 'agent', limitSeconds: 10, elapsedSeconds: 10 } });
  });

  it('an attempt whose deadline passed before its pool was cancelled still counts the timeout and takes its dlq fate', async () => {
    // Prepare: deadline 10 s; nobody looked until the pool was cancelled at 20 s
    await newPool(m.deps, { agent_timeout_secs: 10, timeout_config: { cleanup_grace_period_secs: 5 } }, ['a', 'b']);
    const agent = await claim(m.deps, 'A');
    m.clock.set(at(20));
    await cancelPool(m.deps, 'p', undefined);
    // Act
    m.clock.set(at(21));
    await send(m.deps, agent, { type: 'heartbeat' });
    m.clock.set(at(40));
    await send(m.deps, agent, { type: 'heartbeat' });
    // Assess
    expect(await getItem(m.deps, 'p', agent.itemId)).toMatchObject({ state: 'dlq', timeoutCount: 1 });
  });

  it('a complete sent again after its answer was lost is answered as the first was and adds no late result', async () => {
    // Prepare
    await newPool(m.deps, {});
    const agent = await claim(m.deps, 'a');
    m.clock.set(at(5));
    const first = await send(m.deps, agent, { type: 'complete', outcome: 'succeeded', result: { ok: 1 } });
    // Act: the SDK repeats the call (its answer was lost)
    m.clock.set(at(6));
    const again = await send(m.deps, agent, { type: 'complete', outcome: 'succeeded', result: { ok: 1 } }).catch((error: unknown) => error);
    // Assess
    expect(again).toEqual(first);
    expect((await getItem(m.deps, 'p', 'i-1')).history[0]?.lateResults).toBeUndefined();
  });

  it.each(['s3', 'r3'] as const)('the nextCursor of an escalation page that ends on a `~%s` escalation (stalls, give-backs) is accepted by GET /escalations', async (count) => {
    // Prepare: 51 escalations; the 50th (the first page's last) is one counted apart from timeouts
    const ids = Array.from({ length: 51 }, (_, i) => `i-${String(i).padStart(2, '0')}`);
    await newPool(m.deps, {}, ids);
    for (const [i, itemId] of ids.entries()) {
      await m.deps.pools.putEscalationPointer({ escalationId: escalationIdOf('p', itemId, i === 49 ? count : 3), poolId: 'p', itemId, askedAt: T0 });
    }
    const page = await listEscalations(m.deps, 'p');
    expect(page.nextCursor).toBeDefined();
    // Act
    const answer = await invoke(listEscalationsHandler, { method: 'GET', route: '/escalations', query: { poolId: 'p', cursor: page.nextCursor! } });
    // Assess
    expect(answer.statusCode).toBe(200);
  });

  it('the same pool body sent again with its keys in another order is the same pool (200), not a conflict', async () => {
    // Prepare
    const first = await invoke(createPoolHandler, {
      method: 'POST',
      route: '/pools',
      body: { poolId: 'p', items: [{ itemId: 'i', input: { a: 1, b: 2 } }], config: { agent_timeout_secs: 60, checkpoint_interval_secs: 100 } },
    });
    expect(first.statusCode).toBe(201);
    // Act
    const again = await invoke(createPoolHandler, {
      method: 'POST',
      route: '/pools',
      body: { config: { checkpoint_interval_secs: 100, agent_timeout_secs: 60 }, items: [{ input: { b: 2, a: 1 }, itemId: 'i' }], poolId: 'p' },
    });
    // Assess
    expect(again.statusCode).toBe(200);
  });

  it('a negative cleanup_grace_period_secs is refused with exactly one details entry for that field', async () => {
    // Act
    const answer = await invoke(createPoolHandler, {
      method: 'POST',
      route: '/pools',
      body: { poolId: 'p', items: [{ itemId: 'i' }], config: { timeout_config: { cleanup_grace_period_secs: -1 } } },
    });
    // Assess
    expect(answer.statusCode).toBe(400);
    expect(errorOf(answer).details?.map((detail) => detail.field)).toEqual(['config.timeout_config.cleanup_grace_period_secs']);
    expect(await m.snapshot()).toEqual([]);
  });
});
