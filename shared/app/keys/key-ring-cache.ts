import { KeysRefreshingError } from '../../domain/errors.js';
import type { EpochMs } from '../../domain/time.js';
import { bareKeyRing, keyById, signingKeyOf, type KeyRing, type RingKey } from './key-ring.js';

/** At most one reload per container in this long: a made-up key id can never flood Secrets Manager. */
export const KEY_RELOAD_INTERVAL_MS = 30_000;

/**
 * How long a rotated-in key waits before it signs. A container that read its ring before the key
 * was added has not read it in the last 30 s once the first token under the key reaches it, so it
 * reads again at once and verifies, where it would answer `keys_refreshing` to a key signing at once.
 * The margin covers Secrets Manager's rotation steps between `createSecret`, which stamps `createdAt`,
 * and `finishSecret`, which makes the key the one containers read.
 */
export const KEY_SIGNING_DELAY_MS = KEY_RELOAD_INTERVAL_MS + 90_000;

/** A read of the ring: when it started, and whether it was answered (a failed read says nothing of any id). */
interface RingRead {
  startedAt: EpochMs;
  answered: Promise<boolean>;
}

/**
 * A container's copy of its key ring, read at cold start. A token or cursor naming a key this copy
 * does not hold was made by a container that read the ring after a rotation: the copy is reloaded
 * (at most once per `KEY_RELOAD_INTERVAL_MS`, failed reads included) and then has it, or the id is
 * not a key of the ring. Only a read that started once the id was asked for may say so: one from
 * before may predate the rotation. When no such read can be made yet, `find` throws `KeysRefreshingError`.
 */
export class KeyRingCache implements SigningKeys {
  private reading: RingRead | undefined;
  private lastReadStartedAt: EpochMs | undefined;

  /** `reload` absent: the ring never changes, so an id it does not hold is never a key. */
  constructor(
    private ring: KeyRing,
    private readonly reload: (() => Promise<KeyRing>) | undefined,
    private readonly now: () => EpochMs,
  ) {}

  /** A ring of one key that is never reloaded: a bare local or test key, id `0` as before rotation. */
  static fixed(secret: Buffer): KeyRingCache {
    return new KeyRingCache(bareKeyRing(secret.toString('utf8')), undefined, () => 0);
  }

  /** The key new tokens and cursors are made with. */
  signingKey(): RingKey {
    return signingKeyOf(this.ring, this.now() - KEY_SIGNING_DELAY_MS);
  }

  /**
   * The key with this id, reloading the ring first when this copy does not hold it and may;
   * `undefined` once a read started after this call lacks it. Throws `KeysRefreshingError` when
   * no such read can be made now (too soon after the last, or it failed): the caller retries later.
   */
  async find(id: string): Promise<RingKey | undefined> {
    const held = keyById(this.ring, id);
    if (held || !this.reload) return held;
    const askedAt = this.now();
    // At most twice: a read already under way when the call came, then one of its own.
    for (;;) {
      const read = this.reading ?? this.startReadUnlessRecent(this.reload);
      if (!read) break;
      const answered = await read.answered;
      const found = keyById(this.ring, id);
      if (found) return found;
      if (read.startedAt >= askedAt) {
        if (answered) return undefined;
        break;
      }
    }
    throw new KeysRefreshingError(this.msUntilNextRead());
  }

  private startReadUnlessRecent(reload: () => Promise<KeyRing>): RingRead | undefined {
    const now = this.now();
    if (this.lastReadStartedAt !== undefined && now - this.lastReadStartedAt < KEY_RELOAD_INTERVAL_MS) return undefined;
    this.lastReadStartedAt = now;
    const read: RingRead = {
      startedAt: now,
      answered: reload()
        .then((ring) => ((this.ring = ring), true))
        .catch(() => false)
        .finally(() => (this.reading = undefined)),
    };
    this.reading = read;
    return read;
  }

  private msUntilNextRead(): number {
    return this.lastReadStartedAt === undefined ? 0 : Math.max(0, this.lastReadStartedAt + KEY_RELOAD_INTERVAL_MS - this.now());
  }
}

/** What tokens and cursors are made and checked with: a container's `KeyRingCache`, or (simulation) the container an invocation runs on. */
export interface SigningKeys {
  signingKey(): RingKey;
  find(id: string): Promise<RingKey | undefined>;
}

/** What token and cursor classes accept: signing keys, or a bare key (tests, simulation) as a ring of one. */
export type KeySource = SigningKeys | Buffer;

export const keyRingOf = (source: KeySource | undefined): SigningKeys | undefined =>
  source === undefined || !Buffer.isBuffer(source) ? source : KeyRingCache.fixed(source);
