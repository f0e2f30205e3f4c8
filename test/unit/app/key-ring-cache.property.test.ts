import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { KEY_RELOAD_INTERVAL_MS, KeyRingCache } from '../../../shared/app/keys/key-ring-cache.js';
import type { KeyRing } from '../../../shared/app/keys/key-ring.js';
import { KeysRefreshingError } from '../../../shared/domain/errors.js';

type Step =
  | { kind: 'find'; afterMs: number; which: 'newest' | 'madeUp'; together: number }
  | { kind: 'rotate' }
  | { kind: 'secretsDown'; down: boolean };

const step: fc.Arbitrary<Step> = fc.oneof(
  { weight: 6, arbitrary: fc.record({ kind: fc.constant('find' as const), afterMs: fc.integer({ min: 0, max: 45_000 }), which: fc.constantFrom('newest' as const, 'madeUp' as const), together: fc.integer({ min: 1, max: 3 }) }) },
  { weight: 1, arbitrary: fc.constant({ kind: 'rotate' as const }) },
  { weight: 1, arbitrary: fc.record({ kind: fc.constant('secretsDown' as const), down: fc.boolean() }) },
);

const key = (n: number) => ({ id: `k${n}`, key: `region-key-${n}-0123456789abcdef`, createdAt: n });

/**
 * Whatever callers send and whenever the key rotates or Secrets Manager fails: a container starts a
 * read of its ring at most once per 30 s, never refuses a key of the stored ring as unknown, and
 * once 30 s have passed since its last read answers every id for sure (the key, or refused).
 */
describe('a key ring cache under any sequence of calls, rotations and failures', () => {
  it('reads at most once per 30 s, never refuses a key of the ring, and decides every id once it may read', async () => {
    await fc.assert(
      fc.asyncProperty(fc.array(step, { maxLength: 40 }), async (steps) => {
        // Prepare
        const store = { ring: { keys: [key(1)] } as KeyRing, down: false };
        const clock = { nowMs: 1_000_000 };
        const readStarts: number[] = [];
        const cache = new KeyRingCache(
          store.ring,
          async () => {
            readStarts.push(clock.nowMs);
            if (store.down) throw new Error('ThrottlingException');
            return store.ring;
          },
          () => clock.nowMs,
        );
        // Act
        for (const s of steps) {
          if (s.kind === 'rotate') store.ring = { keys: [...store.ring.keys, key(store.ring.keys.length + 1)] };
          if (s.kind === 'secretsDown') store.down = s.down;
          if (s.kind !== 'find') continue;
          clock.nowMs += s.afterMs;
          const wanted = s.which === 'newest' ? (store.ring.keys.at(-1)?.id ?? '') : 'made-up';
          const mayRead = readStarts.length === 0 || clock.nowMs - (readStarts.at(-1) ?? 0) >= KEY_RELOAD_INTERVAL_MS;
          const answers = await Promise.all(Array.from({ length: s.together }, () => cache.find(wanted).catch((error: unknown) => error)));
          // Assess
          for (const answer of answers) {
            if (answer instanceof KeysRefreshingError) {
              expect(mayRead && !store.down).toBe(false);
              continue;
            }
            expect(answer).toEqual(s.which === 'newest' ? store.ring.keys.at(-1) : undefined);
          }
        }
        const gaps = readStarts.slice(1).map((at, i) => at - (readStarts[i] ?? 0));
        expect(gaps.every((gap) => gap >= KEY_RELOAD_INTERVAL_MS)).toBe(true);
      }),
      { numRuns: 300 },
    );
  });
});
