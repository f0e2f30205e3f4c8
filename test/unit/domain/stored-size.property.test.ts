import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { itemSize } from '../../../shared/domain/stored-size.js';
import { dynaliteItemSize } from '../../support/dynalite-item-size.js';

/**
 * The in-memory DynamoDB refuses a write past 400 KB by `itemSize`, and the pools' bounds are sums of
 * it, so it must count at least what DynamoDB does. dynalite's count (what it refuses a write by) is
 * the reference; a number once measured a byte short of it at some alignments, ~105 B on a 386 KB item.
 */
const anyNumber = fc.oneof(
  fc.integer(),
  fc.integer({ min: -Number.MAX_SAFE_INTEGER, max: Number.MAX_SAFE_INTEGER }),
  fc.double({ noNaN: true, noDefaultInfinity: true }),
  fc.integer({ min: 0, max: 2 ** 31 }).map((n) => n * 10 ** (n % 9)),
  fc.constantFrom(0, -0, 1e21, 1.5e-7, 100, 1_764_000_000_000, 0.1, 12.5),
);

const plainValue = (text: fc.Arbitrary<string>) =>
  fc.letrec((tie) => ({
    value: fc.oneof({ depthSize: 'small' }, anyNumber, text, fc.boolean(), fc.constant(null), fc.array(tie('value'), { maxLength: 4 }), fc.dictionary(text, tie('value'), { maxKeys: 4 })),
  })).value;

const item = (text: fc.Arbitrary<string>) => fc.dictionary(text.filter((name) => name.length > 0), plainValue(text), { minKeys: 1, maxKeys: 6 });

describe("an item's size counts what DynamoDB stores", () => {
  it('is dynalite’s count to the byte for ASCII names and text, whatever the numbers', () => {
    fc.assert(
      fc.property(item(fc.string({ unit: 'binary-ascii', maxLength: 12 })), (stored) => {
        expect(itemSize(stored)).toBe(dynaliteItemSize(stored));
      }),
      { numRuns: 2_000 },
    );
  });

  it('is never below dynalite’s count whatever the text (dynalite counts UTF-16 units)', () => {
    fc.assert(
      fc.property(item(fc.string({ unit: 'grapheme', maxLength: 12 })), (stored) => {
        expect(itemSize(stored)).toBeGreaterThanOrEqual(dynaliteItemSize(stored));
      }),
      { numRuns: 1_000 },
    );
  });

  it('counts the numbers Vigil stores most as dynalite does: a time in ms, a version, a negative, a fraction', () => {
    // Arrange: each differs from its neighbour in digit count or alignment
    const numbers = [1_764_000_000_000, 1_764_000_000_123, 12, 120, 1_200, -5, 0.25, 3.125, 0];
    // Act and Assess
    for (const n of numbers) expect(itemSize({ n }), String(n)).toBe(dynaliteItemSize({ n }));
  });

  it('counts text in UTF-8 bytes, as DynamoDB does (dynalite counts fewer)', () => {
    // Act
    const size = itemSize({ ü: '日本' });
    // Assess: 2 bytes of name, 6 of value
    expect(size).toBe(8);
    expect(dynaliteItemSize({ ü: '日本' })).toBe(3);
  });
});
