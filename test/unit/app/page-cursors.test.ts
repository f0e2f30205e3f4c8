import { describe, expect, it } from 'vitest';
import { PageCursors } from '../../../shared/app/page-cursors.js';
import { CursorNotIssuedError, InvalidRequestError } from '../../../shared/domain/errors.js';

const cursors = new PageCursors(Buffer.from('region secret'));
const scope = ['GET /jobs', 'tenant-t'];
/** The longest position sealed: an escalation id of two 128-character ids. */
const longest = `${'p'.repeat(128)}~${'i'.repeat(128)}~s12345`;

describe('page cursors: sealed, opaque, and only opened by what sealed them', () => {
  it('opens to the position it sealed, for the same scope', () => {
    // Act
    const sealed = cursors.seal('eyJkYXkiOjIwNTAwfQ', scope);
    // Assess
    expect(cursors.open(sealed, scope)).toBe('eyJkYXkiOjIwNTAwfQ');
    expect(sealed).toMatch(/^[A-Za-z0-9_-]+$/);
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
  ])('refuses %s as not issued (400 invalid_request)', (_, change) => {
    // Prepare
    const sealed = cursors.seal(longest, scope);
    // Act
    const open = () => cursors.open(change(sealed), scope);
    // Assess
    expect(open).toThrow(CursorNotIssuedError);
    expect(open).toThrow(InvalidRequestError);
  });

  it("refuses a cursor sealed under another key (another region's secret)", () => {
    // Prepare
    const sealed = new PageCursors(Buffer.from('another region secret')).seal('position', scope);
    // Act / Assess
    expect(() => cursors.open(sealed, scope)).toThrow(CursorNotIssuedError);
  });

  it('refuses a cursor sealed for another scope (another tenant, another listing)', () => {
    // Prepare
    const sealed = cursors.seal('position', scope);
    // Act / Assess
    expect(() => cursors.open(sealed, ['GET /jobs', 'tenant-u'])).toThrow(CursorNotIssuedError);
    expect(() => cursors.open(sealed, ['GET /escalations', 'tenant-t'])).toThrow(CursorNotIssuedError);
  });

  it('a function not granted the secret can neither seal nor open', () => {
    // Prepare
    const ungranted = new PageCursors(undefined);
    // Act / Assess
    expect(() => ungranted.seal('position', scope)).toThrow(/not granted/);
    expect(() => ungranted.open(cursors.seal('position', scope), scope)).toThrow(/not granted/);
  });
});
