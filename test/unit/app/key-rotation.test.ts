import { describe, expect, it } from 'vitest';
import { formatKeyRing, parseKeyRing, type KeyRing } from '../../../shared/app/keys/key-ring.js';
import { KEY_RETENTION_MS, KEY_RING_MAX_BYTES, ringWithNewKey } from '../../../shared/app/keys/key-rotation.js';
import { MAX_DURATION_SECONDS } from '../../../shared/domain/time.js';

const DAY_MS = 86_400_000;
/** A key as the rotation function makes it: 6 random bytes of id, 32 of key, base64url. */
const keyAt = (n: number, createdAt: number) => ({ id: `id${String(n).padStart(6, '0')}`, key: 'k'.repeat(43), createdAt });

describe('rotating a key into the ring', () => {
  it('keeps every key whose successor is younger than the longest job plus a margin, and the newest', () => {
    // Prepare
    const ring: KeyRing = { keys: [keyAt(1, 0), keyAt(2, 10 * DAY_MS), keyAt(3, 400 * DAY_MS)] };
    const now = 10 * DAY_MS + KEY_RETENTION_MS; // key 2, the successor of key 1, is exactly as old as the retention
    // Act
    const next = ringWithNewKey(ring, keyAt(4, now), now);
    // Assess
    expect(KEY_RETENTION_MS).toBeGreaterThan(MAX_DURATION_SECONDS * 1000);
    expect(next.keys.map((k) => k.id)).toEqual(['id000002', 'id000003', 'id000004']);
    expect(ringWithNewKey(ring, keyAt(4, now - 1), now - 1).keys.map((k) => k.id)).toEqual(['id000001', 'id000002', 'id000003', 'id000004']);
  });

  it('keeps a key that signed for longer than the retention until its successor is that old (the pre-rotation key 0)', () => {
    // Prepare: a bare key used for three years before the first rotation
    const legacy = parseKeyRing('a-bare-key-of-before-rotation');
    const firstRotation = 3 * 365 * DAY_MS;
    // Act
    const first = ringWithNewKey(legacy, keyAt(1, firstRotation), firstRotation);
    const second = ringWithNewKey(first, keyAt(2, firstRotation + 30 * DAY_MS), firstRotation + 30 * DAY_MS);
    // Assess
    expect(first.keys.map((k) => k.id)).toEqual(['0', 'id000001']);
    expect(second.keys.map((k) => k.id)).toEqual(['0', 'id000001', 'id000002']);
    expect(second.keys[0]?.key).toBe('a-bare-key-of-before-rotation');
  });

  it('two years of 30-day rotations hold at most 15 keys in under 2 KB, far under the 64 KB secret limit', () => {
    // Prepare
    let ring = parseKeyRing('a-bare-key-of-before-rotation');
    const sizes: number[] = [];
    // Act
    for (let n = 1; n <= 25; n++) {
      const now = n * 30 * DAY_MS;
      ring = ringWithNewKey(ring, keyAt(n, now), now);
      sizes.push(Buffer.byteLength(formatKeyRing(ring), 'utf8'));
    }
    // Assess
    expect(ring.keys.length).toBeLessThanOrEqual(15);
    expect(Math.max(...sizes)).toBeLessThan(2_048);
    expect(KEY_RING_MAX_BYTES).toBeLessThan(64 * 1024);
  });

  it('refuses a rotation that would pass the size limit, and a key id the ring holds', () => {
    // Prepare: daily rotations far past any schedule
    let ring = parseKeyRing('a-bare-key-of-before-rotation');
    const rotateDaily = () => {
      for (let n = 1; n <= 1_000; n++) ring = ringWithNewKey(ring, keyAt(n, n * DAY_MS), n * DAY_MS);
    };
    // Act / Assess
    expect(rotateDaily).toThrow(/more than 32768/);
    expect(() => ringWithNewKey(ring, { ...keyAt(1, 0), createdAt: 2_000 * DAY_MS }, 2_000 * DAY_MS)).toThrow(/already holds/);
  });
});
