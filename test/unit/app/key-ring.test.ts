import { describe, expect, it } from 'vitest';
import { formatKeyRing, MalformedKeyRingError, parseKeyRing, signingKeyOf } from '../../../shared/app/keys/key-ring.js';

const ringOf = (...ids: string[]) => ({ keys: ids.map((id, i) => ({ id, key: `key-of-${id}-0123456789`, createdAt: 1_000 * (i + 1) })) });

describe('a key secret: a bare key from before rotation, or a key ring', () => {
  it('a bare key is a ring of one key with id 0, its bytes untouched', () => {
    // Act
    const ring = parseKeyRing('legacy-secret-value\n');
    // Assess
    expect(ring.keys).toEqual([{ id: '0', key: 'legacy-secret-value\n', createdAt: 0 }]);
  });

  it('a ring reads back as written, the newest key last', () => {
    // Prepare
    const written = ringOf('0', 'k1', 'k2');
    // Act
    const ring = parseKeyRing(formatKeyRing(written));
    // Assess
    expect(ring).toEqual(written);
  });

  it('the newest key created by the maturity time signs; a ring of younger keys only signs with its oldest', () => {
    // Prepare: keys created at 1,000, 2,000 and 3,000
    const ring = ringOf('0', 'k1', 'k2');
    // Act / Assess
    expect(signingKeyOf(ring, 3_000).id).toBe('k2');
    expect(signingKeyOf(ring, 2_999).id).toBe('k1');
    expect(signingKeyOf(ring, 999).id).toBe('0');
  });

  it.each([
    ['not JSON', '{"keys": ['],
    ['no keys', '{"keys": []}'],
    ['keys not a list', '{"keys": "k"}'],
    ['a key without createdAt', JSON.stringify({ keys: [{ id: 'k1', key: 'key-of-k1-0123456789' }] })],
    ['a key id with a separator', JSON.stringify({ keys: [{ id: 'k.1', key: 'key-of-k1-0123456789', createdAt: 1 }] })],
    ['a short key', JSON.stringify({ keys: [{ id: 'k1', key: 'short', createdAt: 1 }] })],
    ['two keys with one id', formatKeyRing(ringOf('k1', 'k1'))],
    ['an empty value', '  '],
  ])('refuses %s with a clear error', (_, value) => {
    // Act / Assess
    expect(() => parseKeyRing(value)).toThrow(MalformedKeyRingError);
    expect(() => parseKeyRing(value)).toThrow(/neither a bare key nor a key ring/);
  });
});
