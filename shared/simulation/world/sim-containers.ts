import { KeyRingCache, type SigningKeys } from '../../app/keys/key-ring-cache.js';
import type { RingKey } from '../../app/keys/key-ring.js';
import { KeysRefreshingError } from '../../domain/errors.js';
import type { World } from './world.js';

/**
 * A region's Lambda containers, each with its own copy of the key ring (a `KeyRingCache` on the
 * virtual clock, read at its cold start and again when a token names a key it lacks), so that after
 * a rotation a container that read the new key and one that did not serve the region side by side,
 * as on AWS. Each invocation runs on one of them, drawn when it first signs or checks a token; the
 * region's tokens and cursors are made and checked with that container's keys.
 */
export class SimContainers implements SigningKeys {
  private readonly containers: KeyRingCache[];
  private readonly servedBy = new WeakMap<object, number>();

  constructor(
    private readonly world: World,
    private readonly region: string,
  ) {
    this.containers = Array.from({ length: world.keyRing.rng.int(2, 3) }, (_, index) => this.coldStart(index));
  }

  /** After a rotation: one container (drawn) gives way to one that cold-starts now, reading the newest ring. */
  coldStartOne(): void {
    const index = this.world.keyRing.rng.int(0, this.containers.length - 1);
    this.containers[index] = this.coldStart(index);
    this.world.log(`${this.region} container ${index} cold-starts with keys ${this.world.keyRing.current().keys.map((k) => k.id).join(',')}`);
  }

  signingKey(): RingKey {
    return this.container(this.serving()).signingKey();
  }

  async find(id: string): Promise<RingKey | undefined> {
    const index = this.serving();
    try {
      const key = await this.container(index).find(id);
      if (!key) this.world.log(`${this.region} container ${index} finds no key ${id}`);
      return key;
    } catch (error) {
      if (error instanceof KeysRefreshingError) this.world.log(`${this.region} container ${index} cannot check key ${id} yet`);
      throw error;
    }
  }

  private coldStart(index: number): KeyRingCache {
    const reread = async () => {
      const read = await this.world.keyRing.reread().catch((error: unknown) => {
        this.world.log(`${this.region} container ${index} fails to read the key ring again`);
        throw error;
      });
      this.world.log(`${this.region} container ${index} reads the key ring again: ${read.keys.map((k) => k.id).join(',')}`);
      return read;
    };
    return new KeyRingCache(this.world.keyRing.current(), reread, () => this.world.now);
  }

  /** The container of the invocation running in the region (the first outside any: a test's direct call). */
  private serving(): number {
    const invocation = this.world.invocations.current(this.region);
    if (!invocation) return 0;
    let index = this.servedBy.get(invocation);
    if (index === undefined) {
      index = this.world.keyRing.rng.int(0, this.containers.length - 1);
      this.servedBy.set(invocation, index);
    }
    return index;
  }

  private container(index: number): KeyRingCache {
    const container = this.containers[index];
    if (!container) throw new Error(`${this.region} has no container ${index}`);
    return container;
  }
}
