import type { EpochMs } from '../../domain/time.js';
import { keyById, LEGACY_KEY_ID, newestKey, type KeyRing, type RingKey } from './key-ring.js';

/** At most one reload per container in this long: a made-up key id can never flood Secrets Manager. */
export const KEY_RELOAD_INTERVAL_MS = 30_000;

/**
 * A container's copy of its key ring, read at cold start. A token or cursor naming a key this copy
 * does not hold was made by a container that read the ring after a rotation: the copy is reloaded
 * (at most once per `KEY_RELOAD_INTERVAL_MS`) and then has it, or the id is not a key of the ring.
 */
export class KeyRingCache {
  private reloading: Promise<void> | undefined;
  private lastReloadAt: EpochMs | undefined;

  constructor(
    private ring: KeyRing,
    private readonly reload: () => Promise<KeyRing>,
    private readonly now: () => EpochMs,
  ) {}

  /** A ring of one key that is never reloaded: a bare local or test key, id `0` as before rotation. */
  static fixed(secret: Buffer): KeyRingCache {
    const ring: KeyRing = { keys: [{ id: LEGACY_KEY_ID, key: secret.toString('utf8'), createdAt: 0 }] };
    return new KeyRingCache(ring, async () => ring, () => 0);
  }

  /** The key new tokens and cursors are made with. */
  signingKey(): RingKey {
    return newestKey(this.ring);
  }

  /** The key with this id, reloading the ring first when this copy does not hold it and may. */
  async find(id: string): Promise<RingKey | undefined> {
    const held = keyById(this.ring, id);
    if (held) return held;
    await this.reloadUnlessRecent();
    return keyById(this.ring, id);
  }

  private reloadUnlessRecent(): Promise<void> {
    if (this.reloading) return this.reloading;
    const now = this.now();
    if (this.lastReloadAt !== undefined && now - this.lastReloadAt < KEY_RELOAD_INTERVAL_MS) return Promise.resolve();
    this.lastReloadAt = now;
    this.reloading = this.reload()
      .then((ring) => void (this.ring = ring))
      .finally(() => (this.reloading = undefined));
    return this.reloading;
  }
}

/** What token and cursor classes accept: a key ring, or a bare key (tests, simulation) as a ring of one. */
export type KeySource = KeyRingCache | Buffer;

export const keyRingOf = (source: KeySource | undefined): KeyRingCache | undefined =>
  source === undefined || source instanceof KeyRingCache ? source : KeyRingCache.fixed(source);
