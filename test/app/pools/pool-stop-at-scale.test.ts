import { describe, expect, it } from 'vitest';
import { DETECTION_BOUND_MS, SWEEP_INTERVAL_MS } from '../../../shared/app/detection-bound.js';
import type { ManagerDeps } from '../../../shared/app/manager-deps.js';
import { cancelPool } from '../../../shared/app/pools/cancel-pool.js';
import { firePoolTimer } from '../../../shared/app/pools/fire-pool-timer.js';
import { SWEEP_GRACE_MS, sweepJobTimers } from '../../../shared/app/sweep-job-timers.js';
import { itemTimerId, poolTimerId, type PoolItem } from '../../../shared/domain/pools/pool-item.js';
import type { TimerRequest } from '../../../shared/ports/timers.js';
import { at } from '../../support/fixtures.js';
import type { TestManager } from '../support/test-manager.js';
import { useTestManager } from '../support/test-manager.js';
import { claim, cutOffAt, deliverPassWakeUps, newPool, send, writtenItems, type Claimed } from './pool-test-support.js';

// A review of AWS limits: a cancel (or a `fail` timeout) woke every running item inside the one call,
// 8 at a time. On DynamoDB a pool of thousands of large items outlasts API Gateway's 29 s or a timer
// consumer's 30 s, and nothing carried the rest on but a client's retry or a redelivered follow-up.
// The stop now writes a wake pass on the pool with its own write; a chunk of running items is woken
// per invocation, each chunk arming the next, and the pool's stored wake-up resumes a pass cut off.
// Agents never waited for it: each call reads the pool and answers `terminate` in a stopped one.

const RUNNING = 11;
/** Small chunks, so the old single call's work takes four of them. */
const CHUNK = 3;
/** Longer than a sweep's wait, so every wake-up the sweep finds due is the pass's. */
const GRACE_MS = 300_000;
const LONG_LIMITS = { agent_timeout_secs: 3_600, checkpoint_interval_secs: 3_000, timeout_config: { cleanup_grace_period_secs: GRACE_MS / 1000 } };
const ITEM_IDS = Array.from({ length: RUNNING + 1 }, (_, i) => `i-${String(i).padStart(2, '0')}`);

/** A pool of `RUNNING` running attempts (and one item nobody claimed), every agent then silent. */
async function poolOfRunningAttempts(m: TestManager): Promise<Claimed[]> {
  await newPool(m.deps, LONG_LIMITS, ITEM_IDS);
  const held: Claimed[] = [];
  for (let i = 0; i < RUNNING; i++) held.push(await claim(m.deps, `agent-${i}`));
  return held;
}

const chunked = (m: TestManager): ManagerDeps => ({ ...m.deps, passChunk: CHUNK });

async function items(m: TestManager, held: readonly Claimed[]): Promise<PoolItem[]> {
  return Promise.all(held.map(async (claimed) => (await m.deps.pools.getItem('p', claimed.itemId)) as PoolItem));
}

describe('a stopped pool with more running attempts than one invocation reaches (dynalite)', () => {
  const m = useTestManager();

  it('every agent hears terminate at its first call after the cancel, before the pass reaches its item, with two reads a heartbeat as in a running pool', async () => {
    // Prepare
    const held = await poolOfRunningAttempts(m);
    m.clock.set(at(10));
    const before = m.calls.length;
    await send(m.deps, held[RUNNING - 1] as Claimed, { type: 'heartbeat' });
    const runningPoolReads = m.calls.slice(before).filter((call) => call.command.startsWith('Get') || call.command === 'QueryCommand').length;
    // Act: the cancel's own call wakes one chunk; no other chunk runs
    await cancelPool(chunked(m), 'p', 'operator');
    const reachedByTheCancel = (await items(m, held)).filter((item) => item.run?.terminating).length;
    const answers: unknown[] = [];
    const readsPerHeartbeat: number[] = [];
    for (const claimed of held) {
      const from = m.calls.length;
      answers.push(await send(m.deps, claimed, { type: 'heartbeat' }));
      readsPerHeartbeat.push(m.calls.slice(from).filter((call) => call.command.startsWith('Get') || call.command === 'QueryCommand').length);
    }
    // Assess: the grace period runs from the cancel for every agent, however far the pass got
    expect(reachedByTheCancel).toBe(CHUNK);
    const terminateBy = new Date(at(10) + GRACE_MS).toISOString();
    expect(answers).toEqual(held.map(() => ({ action: 'terminate', deadlineAt: new Date(at(0) + 3_600_000).toISOString(), terminateBy })));
    expect(runningPoolReads).toBe(2); // the pool item and the attempt's item, by key
    expect(readsPerHeartbeat).toEqual(held.map(() => runningPoolReads));
  });

  it('the pass wakes a chunk per invocation; cut off between chunks, the sweep resumes it from the pool and every attempt of a silent agent is terminating within the detection bound', async () => {
    // Prepare
    const held = await poolOfRunningAttempts(m);
    const deps = chunked(m);
    m.clock.set(at(10));
    await cancelPool(deps, 'p', 'operator');
    const secondChunk = m.timers.expectArmed(poolTimerId('p'));
    // Act: the second chunk's invocation wakes its items and dies before moving the pass on; its message is lost
    const cutOff = await firePoolTimer({ ...deps, pools: cutOffAt(m.deps.pools, 'savePool') }, secondChunk).catch((error: unknown) => error);
    const reachedBeforeTheSweep = (await items(m, held)).filter((item) => item.run?.terminating).length;
    // the latest the next minute's sweep comes: just after the grace at which it presumes the wake-up lost
    m.clock.set(at(10) + SWEEP_GRACE_MS + SWEEP_INTERVAL_MS);
    const writesBeforeTheSweep = writtenItems(m.calls).length;
    const swept = await sweepJobTimers(deps);
    const writesBySweep = writtenItems(m.calls).length - writesBeforeTheSweep;
    const writesPerInvocation: number[] = [];
    const delivered: TimerRequest[] = [secondChunk];
    for (let next = m.timers.current(poolTimerId('p')); next && !delivered.includes(next); next = m.timers.current(poolTimerId('p'))) {
      const writesBefore = writtenItems(m.calls).length;
      delivered.push(next);
      await firePoolTimer(deps, next);
      writesPerInvocation.push(writtenItems(m.calls).length - writesBefore);
    }
    // Assess
    expect(cutOff).toMatchObject({ message: 'the Lambda was cut off at savePool' });
    expect(reachedBeforeTheSweep).toBe(2 * CHUNK);
    // the pool's own wake-up, stored when the pass was at the second chunk: it runs that chunk again, whose items are woken already
    expect(swept.fired).toBe(1);
    expect(writesBySweep).toBe(0);
    // then the third and fourth chunks, each its own invocation, each writing only its own items
    expect(writesPerInvocation).toEqual([CHUNK, RUNNING - 3 * CHUNK]);
    const after = await items(m, held);
    expect(after.map((item) => item.run?.terminating)).toEqual(held.map(() => ({ reason: { kind: 'pool_stopped' }, since: at(10), terminateBy: at(10) + GRACE_MS })));
    expect(m.clock.now()).toBeLessThanOrEqual(at(10) + DETECTION_BOUND_MS);
    expect(after.map((item) => m.timers.current(itemTimerId('p', item.itemId))?.dueAt)).toEqual(held.map(() => at(10) + GRACE_MS));
    const pool = await m.deps.pools.getPool('p');
    expect(pool?.wakePass).toBeUndefined();
    expect(pool?.timerDueAt).toBeUndefined();
  });

  it('the pass reaches each running item once: a second delivery of a chunk\'s wake-up and the stale first one change nothing', async () => {
    // Prepare
    const held = await poolOfRunningAttempts(m);
    const deps = chunked(m);
    m.clock.set(at(10));
    await cancelPool(deps, 'p', 'operator');
    const delivered = await deliverPassWakeUps(m, deps, poolTimerId('p'));
    const settled = await items(m, held);
    const pool = await m.deps.pools.getPool('p');
    const writesBefore = m.calls.length;
    // Act: SQS delivers every chunk's message again
    for (const timer of delivered) await firePoolTimer(deps, timer);
    // Assess: four invocations for eleven attempts in chunks of three; the repeats read the pool and write nothing
    expect(delivered).toHaveLength(Math.ceil(RUNNING / CHUNK) - 1);
    expect(await items(m, held)).toEqual(settled);
    expect(await m.deps.pools.getPool('p')).toEqual(pool);
    expect(m.calls.slice(writesBefore).filter((call) => call.command === 'PutCommand')).toEqual([]);
  });

  it('a timeout_action fail fails the pool and starts the same pass: the item\'s call wakes one chunk, the pool\'s wake-ups the rest', async () => {
    // Prepare: the first agent's limit ends 60 s before everyone else's
    await newPool(m.deps, { agent_timeout_secs: 600, checkpoint_interval_secs: 3_000, timeout_config: { timeout_action: 'fail', cleanup_grace_period_secs: GRACE_MS / 1000 } }, ITEM_IDS);
    const first = await claim(m.deps, 'agent-first');
    m.clock.set(at(60));
    const others: Claimed[] = [];
    for (let i = 1; i < RUNNING; i++) others.push(await claim(m.deps, `agent-${i}`));
    const deps = chunked(m);
    m.clock.set(at(600));
    // Act: the first agent's heartbeat after its deadline times it out; its follow-up fails the pool
    const answer = await send(deps, first, { type: 'heartbeat' });
    const reachedByTheCall = (await items(m, others)).filter((item) => item.run?.terminating).length;
    const delivered = await deliverPassWakeUps(m, deps, poolTimerId('p'));
    // Assess
    expect(answer).toMatchObject({ action: 'terminate' });
    expect((await m.deps.pools.getPool('p'))?.status).toBe('FAILED');
    expect(reachedByTheCall).toBeLessThanOrEqual(CHUNK);
    expect(delivered.length).toBeGreaterThanOrEqual(Math.ceil((RUNNING - CHUNK) / CHUNK));
    expect((await items(m, others)).map((item) => item.run?.terminating?.reason.kind)).toEqual(others.map(() => 'pool_stopped'));
    expect((await items(m, others)).map((item) => item.run?.terminating?.terminateBy)).toEqual(others.map(() => at(600) + GRACE_MS));
  });
});
