import type { EpochMs } from '../../domain/time.js';

/** One signing key of a region (or of the gate's cursors). `key` is the secret text; its UTF-8 bytes are the key. */
export interface RingKey {
  id: string;
  key: string;
  createdAt: EpochMs;
}

/** The keys of one secret, oldest first, at least one: the newest old enough signs (`signingKeyOf`), any of them verifies what it signed. */
export interface KeyRing {
  keys: readonly RingKey[];
}

/** The id a secret's value written before key rotation (a bare key) has in its ring. */
const LEGACY_KEY_ID = '0';

/** A bare key of before rotation as a ring: one key, id `0`, created at 0 (older than any key rotated in). */
export const bareKeyRing = (key: string): KeyRing => ({ keys: [{ id: LEGACY_KEY_ID, key, createdAt: 0 }] });

/** Ids ride in tokens and cursors next to `.` and `~` separators: base64url characters only. */
const KEY_ID = /^[A-Za-z0-9_-]{1,32}$/;
const isKeyId = (id: string): boolean => KEY_ID.test(id);

export class MalformedKeyRingError extends Error {
  constructor(detail: string) {
    super(`The key secret is neither a bare key nor a key ring {"keys":[{"id","key","createdAt"}, …]}: ${detail}`);
  }
}

/**
 * A key secret's value: the bare key of before rotation (one key, id `0`) or a JSON ring.
 * A value that opens with `{` is always read as a ring, so a malformed ring is an error, never a key.
 */
export function parseKeyRing(value: string): KeyRing {
  const text = value.trim();
  if (!text.startsWith('{')) {
    if (text === '') throw new MalformedKeyRingError('the value is empty');
    // Untrimmed: the bare key's bytes are exactly what tokens were signed with before rotation.
    return bareKeyRing(value);
  }
  let json: unknown;
  try {
    json = JSON.parse(text);
  } catch {
    throw new MalformedKeyRingError('it is not JSON');
  }
  const keys = typeof json === 'object' && json !== null && 'keys' in json ? json.keys : undefined;
  if (!Array.isArray(keys) || keys.length === 0) throw new MalformedKeyRingError('"keys" is not a list of at least one key');
  const ring = keys.map((entry: unknown, index) => parseRingKey(entry, index));
  if (new Set(ring.map((k) => k.id)).size !== ring.length) throw new MalformedKeyRingError('two keys have the same id');
  return { keys: ring };
}

function parseRingKey(entry: unknown, index: number): RingKey {
  if (typeof entry !== 'object' || entry === null) throw new MalformedKeyRingError(`key ${index} is not an object`);
  const { id, key, createdAt } = entry as Record<string, unknown>;
  if (typeof id !== 'string' || !isKeyId(id)) throw new MalformedKeyRingError(`key ${index} has no id of 1–32 base64url characters`);
  if (typeof key !== 'string' || key.length < 16) throw new MalformedKeyRingError(`key ${id} has no key of at least 16 characters`);
  if (typeof createdAt !== 'number' || !Number.isSafeInteger(createdAt) || createdAt < 0) throw new MalformedKeyRingError(`key ${id} has no createdAt (epoch ms)`);
  return { id, key, createdAt };
}

export const formatKeyRing = (ring: KeyRing): string => JSON.stringify({ keys: ring.keys });

/**
 * The key that signs: the newest created by `matureBy`, else the oldest (a ring of new keys only, as
 * when a secret is first created: every container reads its keys at cold start).
 */
export function signingKeyOf(ring: KeyRing, matureBy: EpochMs): RingKey {
  const signer = ring.keys.filter((key) => key.createdAt <= matureBy).at(-1) ?? ring.keys[0];
  if (!signer) throw new MalformedKeyRingError('it has no key');
  return signer;
}

export const keyById = (ring: KeyRing, id: string): RingKey | undefined => ring.keys.find((k) => k.id === id);

/**
 * `<key id><separator><rest>` of a token or cursor, or a bare `<rest>` made before rotation (key `0`);
 * anything else names no key: [undefined, undefined].
 */
export function splitKeyId(text: string, separator: string): [string | undefined, string | undefined] {
  const parts = text.split(separator);
  if (parts.length === 1) return [LEGACY_KEY_ID, parts[0]];
  const [keyId, rest] = parts;
  return parts.length === 2 && keyId !== undefined && isKeyId(keyId) ? [keyId, rest] : [undefined, undefined];
}
