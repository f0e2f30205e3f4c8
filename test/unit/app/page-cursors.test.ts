import { describe, expect, it } from 'vitest';
import { KEY_RELOAD_INTERVAL_MS, KEY_SIGNING_DELAY_MS, KeyRingCache } from '../../../shared/app/keys/key-ring-cache.js';
import type { KeyRing } from '../../../shared/app/keys/key-ring.js';
import { PageCursors } from '../../../shared/app/page-cursors.js';
import { CursorNotIssuedError, InvalidRequestError, KeysRefreshingError } from '../../../shared/domain/errors.js';

const cursors = new PageCursors(Buffer.from('region secret'));
const scope = ['GET /jobs', 'tenant-t'];
/** The longest position sealed: an escalation id of two 128-character ids. */
const longest = `${'p'.repeat(128)}~${'i'.repeat(128)}~s12345`;

describe('page cursors: sealed, opaque, and only opened by what sealed them', () => {
  it('opens to the position it sealed, for the same scope', async () => {
    // Act
    const sealed = cursors.seal('eyJkYXkiOjIwNTAwfQ', scope);
    // Assess
    expect(await cursors.open(sealed, scope)).toBe('eyJkYXkiOjIwNTAwfQ');
    expect(sealed).toMatch(/^[A-Za-z0-9_-]+\.[A-Za-z0-9_-]+$/);
  });

  it('shows nothing of the position, and sealing it twice gives two cursors', () => {
    // Act
    const [one, two] = [cursors.seal('t-secret-001', scope), cursors.seal('t-secret-001', scope)];
    // Assess
    expect(Buffer.from(one, 'base64url').toString('latin1')).not.toContain('t-secret');
    expect(one).not.toBe(two);
  });

  it('stays well within a query string for the longest position (~400 characters)', () => {
    expect(cursors.seal(longest, scope).length).toBeLessThanOrEqual(400);
  });

  it.each([
    ['a changed character', (sealed: string) => `${sealed.slice(0, 20)}${sealed[20] === 'A' ? 'B' : 'A'}${sealed.slice(21)}`],
    ['a cut tail', (sealed: string) => sealed.slice(0, -1)],
    ['an added character', (sealed: string) => `${sealed}A`],
    ['garbage', () => 'not a cursor'],
    ['nothing sealed', () => ''],
    ['readable JSON', () => Buffer.from('{"day":20500}').toString('base64url')],
  ])('refuses %s as not issued (400 invalid_request)', async (_, change) => {
    // Prepare
    const sealed = cursors.seal(longest, scope);
    // Act
    const open = () => cursors.open(change(sealed), scope);
    // Assess
    await expect(open()).rejects.toThrow(CursorNotIssuedError);
    await expect(open()).rejects.toThrow(InvalidRequestError);
  });

  it("refuses a cursor sealed under another key (another region's secret)", async () => {
    // Prepare
    const sealed = new PageCursors(Buffer.from('another region secret')).seal('position', scope);
    // Act / Assess
    await expect(cursors.open(sealed, scope)).rejects.toThrow(CursorNotIssuedError);
  });

  it('refuses a cursor sealed for another scope (another tenant, another listing)', async () => {
    // Prepare
    const sealed = cursors.seal('position', scope);
    // Act / Assess
    await expect(cursors.open(sealed, ['GET /jobs', 'tenant-u'])).rejects.toThrow(CursorNotIssuedError);
    await expect(cursors.open(sealed, ['GET /escalations', 'tenant-t'])).rejects.toThrow(CursorNotIssuedError);
  });

  it('a function not granted the secret can neither seal nor open', async () => {
    // Prepare
    const ungranted = new PageCursors(undefined);
    // Act / Assess
    expect(() => ungranted.seal('position', scope)).toThrow(/not granted/);
    await expect(ungranted.open(cursors.seal('position', scope), scope)).rejects.toThrow(/not granted/);
  });
});

describe('page cursors across key rotation', () => {
  const key = (id: string) => ({ id, key: `cursor-key-${id}-0123456789abcdef`, createdAt: 1 });
  const ring = (...ids: string[]): KeyRing => ({ keys: ids.map(key) });
  /** Seals with the ring's newest key: a container whose clock is past every key's signing delay. */
  const cursorsOver = (cached: KeyRing, stored: KeyRing) => new PageCursors(new KeyRingCache(cached, async () => stored, () => 1 + KEY_SIGNING_DELAY_MS));

  it('a cursor sealed under an older key of the ring still opens', async () => {
    // Prepare
    const sealed = cursorsOver(ring('k1'), ring('k1')).seal('position', scope);
    // Act / Assess
    await expect(cursorsOver(ring('k1', 'k2'), ring('k1', 'k2')).open(sealed, scope)).resolves.toBe('position');
  });

  it('a cursor sealed under a key newer than the cached ring opens after a reload', async () => {
    // Prepare
    const sealed = cursorsOver(ring('k1', 'k2'), ring('k1', 'k2')).seal('position', scope);
    // Act / Assess
    await expect(cursorsOver(ring('k1'), ring('k1', 'k2')).open(sealed, scope)).resolves.toBe('position');
  });

  it('a cursor sealed under a key dropped from the ring is refused as not issued', async () => {
    // Prepare
    const sealed = cursorsOver(ring('k1'), ring('k1')).seal('position', scope);
    // Act / Assess
    await expect(cursorsOver(ring('k2', 'k3'), ring('k2', 'k3')).open(sealed, scope)).rejects.toThrow(CursorNotIssuedError);
  });

  it('a cursor under a key rotated in after this container last read its ring answers keys_refreshing, not "not issued", until it may read again', async () => {
    // Prepare: a made-up key id made the container read at 0; the key rotates in just after
    const clock = { nowMs: 0 };
    const store = { ring: ring('k1') };
    const stale = new PageCursors(new KeyRingCache(ring('k1'), async () => store.ring, () => clock.nowMs));
    await expect(stale.open(`made-up.${'A'.repeat(40)}`, scope)).rejects.toThrow(CursorNotIssuedError);
    store.ring = ring('k1', 'k2');
    const sealed = cursorsOver(store.ring, store.ring).seal('position', scope);
    clock.nowMs += 1_000;
    // Act
    const during = await stale.open(sealed, scope).catch((error: unknown) => error);
    clock.nowMs += KEY_RELOAD_INTERVAL_MS;
    const after = await stale.open(sealed, scope);
    // Assess
    expect(during).toBeInstanceOf(KeysRefreshingError);
    expect(after).toBe('position');
  });

  it('a cursor given out before rotation (no key id) opens under key 0', async () => {
    // Prepare
    const legacy = new PageCursors(Buffer.from(key('0').key)).seal('position', scope);
    // Act / Assess
    await expect(cursorsOver(ring('0', 'k1'), ring('0', 'k1')).open(legacy.replace(/^0\./, ''), scope)).resolves.toBe('position');
  });
});
