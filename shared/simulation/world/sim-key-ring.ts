import { bareKeyRing, keyById, type KeyRing, type RingKey } from '../../app/keys/key-ring.js';
import { ringWithNewKey } from '../../app/keys/key-rotation.js';
import type { Plan } from './plan.js';
import { Rng } from './rng.js';

/** Secrets Manager did not answer a container's read of the key ring (an outage, a throttle). */
class KeyRingUnavailable extends Error {
  constructor() {
    super('the key ring secret could not be read');
    this.name = 'KeyRingUnavailable';
  }
}

/**
 * The regions' token secret as Secrets Manager holds it: the bare key of before rotation (id `0`),
 * and one key more at each scheduled rotation (`key-rotation`), as the rotation function adds it.
 * A container reads it at its cold start (always answered: a failed init is not modelled) and again
 * when a token names a key it lacks, a read that fails at the plan's `keyReadFailure` rate. Its
 * draws (these reads', and which container serves a call) are a stream of their own, so a plan
 * without rotations draws the world's numbers as before.
 */
export class SimKeyRing {
  readonly rng: Rng;
  private ring: KeyRing;
  private rotations = 0;

  constructor(
    private readonly plan: Plan,
    private readonly now: () => number,
  ) {
    this.rng = new Rng(plan.seed, 4);
    this.ring = bareKeyRing(`simulated secret ${plan.seed}`);
  }

  rotate(): RingKey {
    this.rotations++;
    const added: RingKey = { id: `k${this.rotations}`, key: `simulated key ${this.plan.seed}/${this.rotations}`, createdAt: this.now() };
    this.ring = ringWithNewKey(this.ring, added, this.now());
    return added;
  }

  /** A cold start's read. */
  current(): KeyRing {
    return this.ring;
  }

  /** A warm container's read again, when a token names a key its copy lacks. */
  async reread(): Promise<KeyRing> {
    if (this.rng.chance(this.plan.rates.keyReadFailure)) throw new KeyRingUnavailable();
    return this.ring;
  }

  holds(keyId: string): boolean {
    return keyById(this.ring, keyId) !== undefined;
  }
}
