import { describe, expect, it } from 'vitest';
import { GetCommand, PutCommand } from '@aws-sdk/lib-dynamodb';
import { generatePlan } from '../../shared/simulation/world/generate-plan.js';
import { buildNodes, JOBS_TABLE, type SimNodes } from '../../shared/simulation/world/nodes.js';
import { NO_RATES } from '../../shared/simulation/world/plan.js';
import { SimulatedCrash } from '../../shared/simulation/world/invocations.js';
import { World } from '../../shared/simulation/world/world.js';
import { CI_PLAN } from './support/seed-range.js';

/** Every invocation crashes at its first crash point after a write (a publish, an arm, a disarm). */
async function crashingWorld(): Promise<{ world: World; nodes: SimNodes; east: string; west: string }> {
  const world = new World({ ...generatePlan(1, { ...CI_PLAN, faults: [] }), rates: { ...NO_RATES, crash: 1 } }, true);
  const [east = '', west = ''] = world.plan.regions;
  return { world, nodes: await buildNodes(world), east, west };
}

/** A region's ports as its handlers reach them: its store (through the adapters' client), bus and timers. */
function portsOf(world: World, nodes: SimNodes, region: string) {
  const node = nodes.regions.get(region);
  if (!node) throw new Error(`no region ${region}`);
  return {
    put: (pk: string) => node.dynamo.doc.send(new PutCommand({ TableName: JOBS_TABLE, Item: { pk, sk: 'S' } })),
    stored: async (pk: string) => (await node.dynamo.observer.send(new GetCommand({ TableName: JOBS_TABLE, Key: { pk, sk: 'S' } }))).Item !== undefined,
    publish: () => node.deps.bus.publish([{ detailType: 'Unrouted', detail: {} }]),
    arm: () => node.deps.timers.arm({ scope: 'job', jobId: 'j', fenceToken: 1, dueAt: world.now + 60_000 }),
    disarm: () => node.deps.timers.disarm('job', 'j', 60_000),
  };
}

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
      `${east}:handler failed (attempt 1): SimulatedCrash: simulated crash after the write, before the effects`,
      `${east}:handler failed (attempt 2): SimulatedCrash: simulated crash after the write, before the effects`,
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
      world.invocations.run(east, async () => {
        await dying.put('east');
        await swallowed(dying.publish);
        died();
        await swallowed(() => dying.put('east-after'));
      }),
      world.invocations.run(west, async () => {
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
    const outer = world.invocations.run(east, async () => {
      inner = world.invocations.run(east, async () => {
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
