import type { SimNodes } from './nodes.js';
import { SIM_EPOCH, type World } from './world.js';

/** A rotated-in key reaches a region when a container cold-starts, within this long of the rotation. */
const COLD_START_WITHIN_MS = 30_000;

/**
 * The scheduled rotation of the regions' token secret (`key-rotation`): at each of the plan's times a
 * key is added to the ring, and in each region one container cold-starts soon after, reading it, and
 * signs with it while the others still hold the ring they read before.
 */
export function scheduleKeyRotations(world: World, nodes: SimNodes): void {
  for (const fault of world.plan.faults) {
    if (fault.kind !== 'key-rotation') continue;
    world.at(SIM_EPOCH + fault.atMs, 'rotate keys', async () => {
      world.log(`the rotation adds key ${world.keyRing.rotate().id}`);
      for (const node of nodes.regions.values()) {
        world.after(world.keyRing.rng.int(0, COLD_START_WITHIN_MS), `${node.name} cold start`, async () => node.containers.coldStartOne());
      }
    });
  }
}
