import { describe, expect, it } from 'vitest';
import { ensureTable, WORKER_INDEX } from '../../shared/adapters/aws/jobs-table.js';
import { PutCommand, QueryCommand } from '@aws-sdk/lib-dynamodb';
import { MemoryDynamo } from '../../shared/simulation/dynamo/memory-dynamo.js';
import { runPlan } from '../../shared/simulation/run-plan.js';
import { shrink } from '../../shared/simulation/shrink.js';
import { generatePlan } from '../../shared/simulation/world/generate-plan.js';
import { FAULT_KINDS, NO_RATES, type Plan } from '../../shared/simulation/world/plan.js';
import { SimTimers } from '../../shared/simulation/world/sim-timers.js';
import { World } from '../../shared/simulation/world/world.js';
import { CI_PLAN } from './support/seed-range.js';

const quietPlan = (seed: number, rates = NO_RATES): Plan => ({ ...generatePlan(seed, { ...CI_PLAN, faults: [] }), rates });

describe('the simulator', () => {
  it('replays a seed byte for byte, and another seed differently', async () => {
    // Prepare
    const plan = generatePlan(7, CI_PLAN);
    // Act
    const [first, again, other] = await Promise.all([runPlan(plan), runPlan(plan), runPlan(generatePlan(8, CI_PLAN))]);
    // Assess
    expect(again.digest).toBe(first.digest);
    expect(again.steps).toBe(first.steps);
    expect(other.digest).not.toBe(first.digest);
  });

  it('after a key rotation a stale container whose ring read fails answers keys_refreshing, never invalid_token, and the run replays byte for byte', async () => {
    // Prepare: seed 2 rotates key k1 in at 48 s; a eu-west-1 container that did not read it fails to read the ring at 195 s.
    // The faults of time (slow-calls, clock-skew) are left out: they move this seed's moments with every clock reading a change adds.
    const plan = generatePlan(2, { ...CI_PLAN, faults: FAULT_KINDS.filter((kind) => kind !== 'slow-calls' && kind !== 'clock-skew') });
    // Act
    const [first, again] = await Promise.all([runPlan(plan, { keepTrace: true }), runPlan(plan, { keepTrace: true })]);
    // Assess
    expect(first.trace.filter((line) => line.includes('cannot check key k1 yet')).length).toBeGreaterThan(0);
    expect(first.violations).toEqual([]);
    expect(again.digest).toBe(first.digest);
  });

  it('covers every fault kind over the CI seeds', () => {
    const plans = Array.from({ length: 50 }, (_, i) => generatePlan(i + 1, CI_PLAN));
    const scheduled = new Set(plans.flatMap((p) => p.faults.map((f) => f.kind)));
    const behaviours = new Set(plans.flatMap((p) => p.jobs.flatMap((j) => j.workers.map((w) => w.behaviour))));
    const agents = new Set(plans.flatMap((p) => p.pools.flatMap((pool) => pool.agents.map((a) => a.behaviour))));
    const rates = plans[0]?.rates;
    expect([...scheduled].sort()).toEqual(['bus-outage', 'gate-down', 'job-cancel', 'key-rotation', 'pool-cancel', 'region-cut', 'takeover']);
    expect([...behaviours].sort()).toEqual(['bursts', 'dies', 'extends-then-dies', 'extension-no-progress', 'hangs', 'normal', 'recovers']);
    expect([...agents].sort()).toEqual(['dies', 'gives-back', 'ignores-terminate', 'late-result', 'normal', 'slow', 'stops-checkpointing']);
    expect(Object.entries(rates ?? {}).filter(([, value]) => value === 0)).toEqual([]);
  });

  it('an armed wake-up always fires, even after disarm (an SQS delay message cannot be withdrawn)', async () => {
    // Prepare
    const world = new World(quietPlan(1));
    const fired: string[] = [];
    const timers = new SimTimers(world, 'us-east-1', async (timer) => void fired.push(timer.jobId));
    // Act
    await timers.arm({ scope: 'job', jobId: 'j1', fenceToken: 1, dueAt: world.now + 5_000 });
    await timers.disarm();
    await world.run(world.now + 60_000, async () => {}, () => false);
    // Assess
    expect(fired).toEqual(['j1']);
  });

  it('a redelivered invocation runs the same input again (at-least-once)', async () => {
    const world = new World(quietPlan(1, { ...NO_RATES, redelivery: 1 }));
    let runs = 0;
    await world.invoke('us-east-1', 'handler', async () => void runs++, { delayMs: () => 0, maxAttempts: 1 });
    await world.run(world.now + 120_000, async () => {}, () => runs >= 3);
    expect(runs).toBeGreaterThanOrEqual(2);
  });

  it('a secondary index read sees a write only after its lag (GSIs are eventually consistent)', async () => {
    // Prepare
    let now = 1_000;
    const dynamo = new MemoryDynamo({ now: () => now, indexLagMs: () => 500 });
    await ensureTable(dynamo.client, 't', true);
    const byWorker = () =>
      dynamo.doc.send(
        new QueryCommand({ TableName: 't', IndexName: WORKER_INDEX, KeyConditionExpression: 'gsiWorkerId = :w', ExpressionAttributeValues: { ':w': 'w1' } }),
      );
    // Act
    await dynamo.doc.send(new PutCommand({ TableName: 't', Item: { pk: 'JOB#1', sk: 'WF#a', gsiWorkerId: 'w1', index: 0 } }));
    const before = await byWorker();
    now += 500;
    const after = await byWorker();
    // Assess
    expect(before.Items).toEqual([]);
    expect(after.Items).toHaveLength(1);
  });

  it('shrinking keeps only what the failure needs', async () => {
    // Prepare: a "failure" that needs job 2 and the first takeover, and nothing else.
    const plan: Plan = {
      ...generatePlan(3, { ...CI_PLAN, jobs: 5 }),
      faults: [
        { kind: 'takeover', jobId: 'x', region: 'us-east-1', atMs: 1 },
        { kind: 'gate-down', fromMs: 0, untilMs: 10 },
      ],
    };
    const needed = plan.jobs[2];
    const fails = async (candidate: Plan) => candidate.jobs.includes(needed as never) && candidate.faults.some((f) => f.kind === 'takeover');
    // Act
    const { plan: minimal } = await shrink(plan, fails);
    // Assess
    expect(minimal.jobs).toEqual([needed]);
    expect(minimal.faults.map((f) => f.kind)).toEqual(['takeover']);
    expect(Object.values(minimal.rates).every((rate) => rate === 0)).toBe(true);
  });

  it('without faults every job ends in one terminal state with no violation', async () => {
    const result = await runPlan(quietPlan(11));
    expect(result.violations).toEqual([]);
    expect(result.finishedAfterGlobalTimeout).toEqual([]);
  });
});

describe('the simulator on dynalite', () => {
  it('runs a faulty seed to the same trace, byte for byte, as on the in-memory store', { timeout: 120_000 }, async () => {
    // Index lag is the one fault dynalite cannot show (its indexes are immediate), so it stays off.
    const plan = generatePlan(12, { ...CI_PLAN, jobs: 2, maxTimeoutSeconds: 120, faults: ['takeover', 'crash', 'drop', 'duplicate', 'worker-dies', 'timer-loss'] });
    const [memory, dynalite] = await Promise.all([runPlan(plan), runPlan(plan, { store: 'dynalite' })]);
    expect(dynalite.violations).toEqual(memory.violations);
    expect(dynalite.steps).toBe(memory.steps);
    expect(dynalite.digest).toBe(memory.digest);
  });
});
