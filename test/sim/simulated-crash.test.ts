import { describe, expect, it } from 'vitest';
import { BatchWriteCommand, GetCommand, PutCommand } from '@aws-sdk/lib-dynamodb';
import type { StoreKind } from '../../shared/simulation/dynamo/sim-store.js';
import { generatePlan } from '../../shared/simulation/world/generate-plan.js';
import { buildNodes, JOBS_TABLE, type SimNodes } from '../../shared/simulation/world/nodes.js';
import { NO_RATES } from '../../shared/simulation/world/plan.js';
import type { CrashPoint } from '../../shared/simulation/world/crash-point.js';
import { SimulatedCrash } from '../../shared/simulation/world/invocations.js';
import { World } from '../../shared/simulation/world/world.js';
import { CI_PLAN } from './support/seed-range.js';

/** Every invocation crashes at `point`: by default at its first effect (a publish, an arm, a disarm) after a write. */
async function crashingWorld(point: CrashPoint = { at: 'effects' }, store: StoreKind = 'memory'): Promise<{ world: World; nodes: SimNodes; east: string; west: string }> {
  const world = new World({ ...generatePlan(1, { ...CI_PLAN, faults: [] }), rates: NO_RATES }, true, () => point);
  const [east = '', west = ''] = world.plan.regions;
  return { world, nodes: await buildNodes(world, store), east, west };
}

/** A region's ports as its handlers reach them: its store (through the adapters' client), bus and timers. */
function portsOf(world: World, nodes: SimNodes, region: string) {
  const node = nodes.regions.get(region);
  if (!node) throw new Error(`no region ${region}`);
  return {
    put: (pk: string) => node.dynamo.doc.send(new PutCommand({ TableName: JOBS_TABLE, Item: { pk, sk: 'S' } })),
    putNew: (pk: string) => node.dynamo.doc.send(new PutCommand({ TableName: JOBS_TABLE, Item: { pk, sk: 'S' }, ConditionExpression: 'attribute_not_exists(pk)' })),
    putBatch: (...pks: string[]) => node.dynamo.doc.send(new BatchWriteCommand({ RequestItems: { [JOBS_TABLE]: pks.map((pk) => ({ PutRequest: { Item: { pk, sk: 'S' } } })) } })),
    read: (pk: string) => node.dynamo.doc.send(new GetCommand({ TableName: JOBS_TABLE, Key: { pk, sk: 'S' } })),
    stored: async (pk: string) => (await node.dynamo.observer.send(new GetCommand({ TableName: JOBS_TABLE, Key: { pk, sk: 'S' } }))).Item !== undefined,
    publish: () => node.deps.bus.publish([{ detailType: 'Unrouted', detail: {} }]),
    arm: () => node.deps.timers.arm({ scope: 'job', jobId: 'j', fenceToken: 1, dueAt: world.now + 60_000 }),
    disarm: () => node.deps.timers.disarm({ scope: 'job', jobId: 'j', fenceToken: 1 }, 60_000),
  };
}

const closeStores = (nodes: SimNodes) => Promise.all([...nodes.regions.values(), nodes.gate].map((node) => node.dynamo.close()));

const swallowed = async (call: () => Promise<unknown>) => {
  try {
    await call();
  } catch {
    // best effort, as the outbox publish and its retry's arming are in the code under test
  }
};

describe('a simulated crash', () => {
  it('ends a handler that catches it: nothing after the crash point takes effect, and it fails and is retried', async () => {
    // Prepare
    const { world, nodes, east } = await crashingWorld();
    const ports = portsOf(world, nodes, east);
    let runs = 0;
    const handler = async () => {
      runs++;
      await ports.put(`before-${runs}`);
      await swallowed(ports.publish); // the crash point: dies here
      await swallowed(() => ports.put(`after-${runs}`));
      await swallowed(ports.arm);
      await swallowed(ports.disarm);
      await swallowed(ports.publish);
    };
    // Act
    const ok = await world.invoke(east, 'handler', handler, { delayMs: () => 1_000, maxAttempts: 2 });
    await world.run(world.now + 60_000, async () => {}, () => false);
    // Assess: each attempt wrote before the crash point only
    expect(ok).toBe(false);
    expect(runs).toBe(2);
    expect([await ports.stored('before-1'), await ports.stored('after-1'), await ports.stored('after-2')]).toEqual([true, false, false]);
    expect([world.calls.eventBridgeEvents, world.calls.sqsRequests]).toEqual([0, 0]);
    expect(world.trace.map((line) => line.replace(/^[\d.]+ /, ''))).toEqual([
      `${east}:handler failed (attempt 1): SimulatedCrash: simulated crash at the effects`,
      `${east}:handler failed (attempt 2): SimulatedCrash: simulated crash at the effects`,
      `${east}:handler gave up after 2 attempts`,
    ]);
    expect(world.unexpectedErrors).toEqual([]);
  });

  it('keeps what a handler answers after it from its caller, who sees the crash instead', async () => {
    // Prepare
    const { world, nodes, east } = await crashingWorld();
    const ports = portsOf(world, nodes, east);
    const handler = async () => {
      await ports.put('written');
      await swallowed(ports.publish);
      return 'done';
    };
    let heard: string | undefined;
    // Act: as the simulated clients call, reading the answer inside the invocation
    const ok = await world.invoke(east, 'route', async () => void (heard = await world.invocations.answerOf(east, handler())), { delayMs: () => 0, maxAttempts: 1 });
    // Assess
    expect(ok).toBe(false);
    expect(heard).toBeUndefined();
  });

  it('does not stop an invocation running beside it on another node (the gate calls its regions in parallel)', async () => {
    // Prepare
    const { world, nodes, east, west } = await crashingWorld();
    const [dying, living] = [portsOf(world, nodes, east), portsOf(world, nodes, west)];
    let died = () => {};
    const death = new Promise<void>((resolve) => (died = resolve));
    // Act: the west invocation makes its calls after the east one died, before the east one ends
    const [crashed, answer] = await Promise.allSettled([
      world.invocations.run(east, 'dying', async () => {
        await dying.put('east');
        await swallowed(dying.publish);
        died();
        await swallowed(() => dying.put('east-after'));
      }),
      world.invocations.run(west, 'living', async () => {
        await death;
        await living.arm(); // before its write: no crash strikes here
        await living.put('west');
        return 'west answered';
      }),
    ]);
    // Assess
    expect(crashed).toMatchObject({ status: 'rejected', reason: expect.any(SimulatedCrash) });
    expect(answer).toEqual({ status: 'fulfilled', value: 'west answered' });
    expect([await dying.stored('east-after'), await living.stored('west'), world.calls.sqsRequests]).toEqual([false, true, 1]);
  });

  it('stays with its invocation when another waits for it on the same node (a client calling again from an answer)', async () => {
    // Prepare
    const { world, nodes, east } = await crashingWorld();
    const ports = portsOf(world, nodes, east);
    let inner: Promise<void> | undefined;
    // Act
    const outer = world.invocations.run(east, 'outer', async () => {
      inner = world.invocations.run(east, 'inner', async () => {
        await ports.put('inner');
        await swallowed(ports.publish);
      });
      await swallowed(() => inner as Promise<void>);
      await ports.put('outer');
      await swallowed(ports.publish);
    });
    // Assess: the inner death refused nothing of the outer, which then met its own crash after its own write
    await expect(outer).rejects.toBeInstanceOf(SimulatedCrash);
    await expect(inner).rejects.toBeInstanceOf(SimulatedCrash);
    expect(await ports.stored('outer')).toBe(true);
    expect(world.calls.eventBridgeEvents).toBe(0);
  });
});

describe('a crash at a store write', () => {
  /** Three write calls, each swallowing its failure as code under test may; then an effect. */
  const threeWrites = (ports: ReturnType<typeof portsOf>) => async () => {
    await swallowed(() => ports.put('first'));
    await swallowed(() => ports.putBatch('second-a', 'second-b'));
    await swallowed(() => ports.read('first'));
    await swallowed(() => ports.put('third'));
    await swallowed(ports.publish);
  };

  it.each(['memory', 'dynalite'] as const)('before write 2 (%s): the first write stays, the second and all later calls never happen', async (store) => {
    // Prepare
    const { world, nodes, east } = await crashingWorld({ at: 'before-write', write: 2 }, store);
    const ports = portsOf(world, nodes, east);
    // Act
    const ok = await world.invoke(east, 'three-writes', threeWrites(ports), { delayMs: () => 0, maxAttempts: 1 });
    // Assess
    const stored = await Promise.all(['first', 'second-a', 'second-b', 'third'].map(ports.stored));
    expect([ok, ...stored]).toEqual([false, true, false, false, false]);
    expect(world.calls.eventBridgeEvents).toBe(0);
    expect(world.trace.at(0)).toContain(`${east}:three-writes failed (attempt 1): SimulatedCrash: simulated crash before write 2`);
    expect([world.invocations.crashes.at('before write 2', 'three-writes'), world.invocations.crashes.total]).toEqual([1, 1]);
    await closeStores(nodes);
  });

  it.each(['memory', 'dynalite'] as const)('after write 2 (%s): a batch is one write, durable whole; the read after it is refused', async (store) => {
    // Prepare
    const { world, nodes, east } = await crashingWorld({ at: 'after-write', write: 2 }, store);
    const ports = portsOf(world, nodes, east);
    // Act
    const ok = await world.invoke(east, 'three-writes', threeWrites(ports), { delayMs: () => 0, maxAttempts: 1 });
    // Assess
    const stored = await Promise.all(['first', 'second-a', 'second-b', 'third'].map(ports.stored));
    expect([ok, ...stored]).toEqual([false, true, true, true, false]);
    expect(world.calls.eventBridgeEvents).toBe(0);
    expect([world.invocations.crashes.at('after write 2', 'three-writes'), world.invocations.crashes.total]).toEqual([1, 1]);
    await closeStores(nodes);
  });

  it('after a write its condition refused: a refused write is a write call too, and the process dies after it', async () => {
    // Prepare
    const { world, nodes, east } = await crashingWorld({ at: 'after-write', write: 2 });
    const ports = portsOf(world, nodes, east);
    let heard: unknown;
    // Act
    const ok = await world.invoke(east, 'conditional', async () => {
      await ports.put('taken');
      try {
        await ports.putNew('taken');
      } catch (error) {
        heard = error;
      }
      await swallowed(() => ports.put('after'));
    }, { delayMs: () => 0, maxAttempts: 1 });
    // Assess: the code saw the crash, not the refusal, and nothing after it was written
    expect(ok).toBe(false);
    expect(heard).toBeInstanceOf(SimulatedCrash);
    expect(await ports.stored('after')).toBe(false);
  });

  it('after write 1 of two in flight together (dynalite): each write call keeps its number, and the process dies as the first ends', async () => {
    // Prepare
    const { world, nodes, east } = await crashingWorld({ at: 'after-write', write: 1 }, 'dynalite');
    const ports = portsOf(world, nodes, east);
    // Act
    const ok = await world.invoke(east, 'two-at-once', async () => {
      await Promise.allSettled([ports.put('first'), ports.put('second')]);
      await swallowed(() => ports.put('after'));
    }, { delayMs: () => 0, maxAttempts: 1 });
    // Assess: both were sent before the death; nothing after it
    const stored = await Promise.all(['first', 'second', 'after'].map(ports.stored));
    expect([ok, ...stored, world.invocations.crashes.at('after write 1', 'two-at-once')]).toEqual([false, true, true, false, 1]);
    await closeStores(nodes);
  });

  it('is not reached by an invocation making fewer writes: it answers as if no crash were drawn', async () => {
    // Prepare
    const { world, nodes, east } = await crashingWorld({ at: 'before-write', write: 4 });
    const ports = portsOf(world, nodes, east);
    // Act
    const ok = await world.invoke(east, 'three-writes', threeWrites(ports), { delayMs: () => 0, maxAttempts: 1 });
    // Assess
    expect([ok, await ports.stored('third'), world.calls.eventBridgeEvents, world.invocations.crashes.total]).toEqual([true, true, 1, 0]);
  });
});
