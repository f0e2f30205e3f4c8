import { MAX_DURATION_SECONDS, secondsToMs, type EpochMs } from '../../domain/time.js';
import { formatKeyRing, type KeyRing, type RingKey } from './key-ring.js';

/**
 * How long a key is kept once a newer key has taken over signing: the longest job (a token is
 * issued at the latest while its job runs) plus a margin for extensions past the timeout and for
 * warm containers that still sign with a key they read before the rotation.
 */
export const KEY_RETENTION_MS = secondsToMs(MAX_DURATION_SECONDS) + 30 * 24 * 3600 * 1000;

/** Far under Secrets Manager's 64 KB value limit; a rotation that would pass it fails and changes nothing. */
export const KEY_RING_MAX_BYTES = 32 * 1024;

/**
 * The ring after rotating in `added`: every key still able to verify a live token, then the new key.
 * A key signs until its successor is created, so it is dropped only when its successor is older than
 * the retention: by age of the key itself a key that signed for a long time (the pre-rotation key
 * `0`, or one left current while rotation was off) would be dropped while its tokens are alive.
 */
export function ringWithNewKey(ring: KeyRing, added: RingKey, now: EpochMs): KeyRing {
  if (ring.keys.some((key) => key.id === added.id)) throw new Error(`The key ring already holds a key with id ${added.id}.`);
  const kept = ring.keys.filter((_, index) => {
    const successor = ring.keys[index + 1];
    return successor === undefined || now - successor.createdAt < KEY_RETENTION_MS;
  });
  const next: KeyRing = { keys: [...kept, added] };
  const bytes = Buffer.byteLength(formatKeyRing(next), 'utf8');
  if (bytes > KEY_RING_MAX_BYTES) {
    throw new Error(`Rotating in another key would make the key ring ${bytes} bytes (more than ${KEY_RING_MAX_BYTES}): too many rotations within ${KEY_RETENTION_MS / 86_400_000} days.`);
  }
  return next;
}
