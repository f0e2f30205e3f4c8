import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { KEY_RELOAD_INTERVAL_MS, KEY_SIGNING_DELAY_MS, KeyRingCache } from '../../../shared/app/keys/key-ring-cache.js';
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

type FleetStep =
  | { kind: 'wait'; ms: number }
  | { kind: 'rotate'; finishAfterMs: number }
  | { kind: 'coldStart'; container: number }
  | { kind: 'madeUpId'; container: number }
  | { kind: 'check'; signer: number; checker: number };

/** What the signing delay's margin promises: Secrets Manager runs a rotation's steps within 90 s. */
const ROTATION_FINISHES_WITHIN_MS = 90_000;
const container = fc.integer({ min: 0, max: 1 });
const fleetStep: fc.Arbitrary<FleetStep> = fc.oneof(
  // Waits of moments (within one container's 30 s between reads) as well as of minutes.
  { weight: 3, arbitrary: fc.record({ kind: fc.constant('wait' as const), ms: fc.oneof(fc.integer({ min: 0, max: 5_000 }), fc.integer({ min: 0, max: 150_000 })) }) },
  {
    weight: 1,
    arbitrary: fc.record({ kind: fc.constant('rotate' as const), finishAfterMs: fc.oneof(fc.constant(0), fc.integer({ min: 0, max: ROTATION_FINISHES_WITHIN_MS })) }),
  },
  { weight: 1, arbitrary: fc.record({ kind: fc.constant('coldStart' as const), container }) },
  { weight: 2, arbitrary: fc.record({ kind: fc.constant('madeUpId' as const), container }) },
  { weight: 4, arbitrary: fc.record({ kind: fc.constant('check' as const), signer: container, checker: container }) },
);

/**
 * Containers of one region side by side, cold-starting at any time, with rotations whose key becomes
 * current (`finishSecret`) up to 90 s after it was stamped (`createSecret`), Secrets Manager answering:
 * each token one container signs is checked at once by another, and must verify there.
 */
async function runFleet(steps: readonly FleetStep[]): Promise<void> {
  const clock = { nowMs: 1_000_000 };
  const rotations: Array<{ ring: KeyRing; currentFrom: number }> = [{ ring: { keys: [key(1)] }, currentFrom: 0 }];
  const current = (): KeyRing => rotations.filter((r) => r.currentFrom <= clock.nowMs).at(-1)?.ring ?? { keys: [key(1)] };
  const coldStart = () => new KeyRingCache(current(), async () => current(), () => clock.nowMs);
  const containers = [coldStart(), coldStart()];
  const at = (index: number) => containers[index] as KeyRingCache;
  for (const s of steps) {
    if (s.kind === 'wait') clock.nowMs += s.ms;
    if (s.kind === 'rotate') {
      const last = rotations.at(-1)?.ring.keys ?? [];
      const added = { ...key(last.length + 1), createdAt: clock.nowMs };
      rotations.push({ ring: { keys: [...last, added] }, currentFrom: clock.nowMs + s.finishAfterMs });
    }
    if (s.kind === 'coldStart') containers[s.container] = coldStart();
    if (s.kind === 'madeUpId') await at(s.container).find('made-up').catch(() => undefined);
    if (s.kind !== 'check') continue;
    const signed = at(s.signer).signingKey();
    const found = await at(s.checker).find(signed.id).catch((error: unknown) => error);
    expect(found, `${signed.id} signed by container ${s.signer}, checked by ${s.checker}`).toEqual(signed);
  }
}

/** The new key signs only once any container lacking it may read its ring again, so none answers `keys_refreshing`. */
describe('containers of a region across rotations, Secrets Manager answering', () => {
  it('every token any container signs verifies on every other: never keys_refreshing, never unknown', async () => {
    await fc.assert(
      fc.asyncProperty(fc.array(fleetStep, { maxLength: 60 }), async (steps) => {
        // Act / Assess
        await runFleet(steps);
      }),
      { numRuns: 1_000 },
    );
  });

  it('a rotation finishing 89 s after its stamp: a container that read the old ring just before verifies the first token a cold start signs', async () => {
    // Prepare / Act / Assess: the read at 88.999 s may not be repeated for 30 s; the cold start at 89.001 s holds the new key
    await runFleet([
      { kind: 'rotate', finishAfterMs: 89_000 },
      { kind: 'wait', ms: 88_999 },
      { kind: 'madeUpId', container: 0 },
      { kind: 'wait', ms: 2 },
      { kind: 'coldStart', container: 1 },
      { kind: 'check', signer: 1, checker: 0 },
      { kind: 'wait', ms: KEY_SIGNING_DELAY_MS },
      { kind: 'check', signer: 1, checker: 0 },
    ]);
  });
});
