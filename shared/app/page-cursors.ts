import { createCipheriv, createDecipheriv, hkdfSync, randomBytes } from 'node:crypto';
import { CursorNotIssuedError } from '../domain/errors.js';

/** The HKDF label of the cursor key: a key of its own, never the token HMAC key itself. */
const KEY_INFO = 'vigil page cursor v1';
const IV_BYTES = 12;
const TAG_BYTES = 16;

/**
 * Page cursors a caller can neither read nor forge: a listing's position, sealed with AES-256-GCM
 * under a key derived (HKDF-SHA256) from the region's token secret. The listing's `scope` (its route
 * and whose page it is) is authenticated with it, so a cursor opens only for the listing that gave it
 * out; any other cursor (tampered, another region's, made up) is refused as not issued.
 */
export class PageCursors {
  private readonly key: Buffer | undefined;

  /** `secret` is absent in functions that are not granted it; they never make or read a cursor. */
  constructor(secret: Buffer | undefined) {
    this.key = secret === undefined ? undefined : Buffer.from(hkdfSync('sha256', secret, Buffer.alloc(0), KEY_INFO, 32));
  }

  seal(position: string, scope: readonly string[]): string {
    const iv = randomBytes(IV_BYTES);
    const cipher = createCipheriv('aes-256-gcm', this.requireKey(), iv, { authTagLength: TAG_BYTES });
    cipher.setAAD(aadOf(scope));
    const sealed = Buffer.concat([cipher.update(position, 'utf8'), cipher.final()]);
    return Buffer.concat([iv, sealed, cipher.getAuthTag()]).toString('base64url');
  }

  /** The position `seal` was given for the same scope; throws `CursorNotIssuedError` for anything else. */
  open(cursor: string, scope: readonly string[]): string {
    const key = this.requireKey();
    const bytes = Buffer.from(cursor, 'base64url');
    // base64url decoding skips what it cannot read: only the exact text `seal` wrote is a cursor.
    if (bytes.length < IV_BYTES + TAG_BYTES || bytes.toString('base64url') !== cursor) throw new CursorNotIssuedError();
    try {
      const decipher = createDecipheriv('aes-256-gcm', key, bytes.subarray(0, IV_BYTES), { authTagLength: TAG_BYTES });
      decipher.setAAD(aadOf(scope));
      decipher.setAuthTag(bytes.subarray(bytes.length - TAG_BYTES));
      return Buffer.concat([decipher.update(bytes.subarray(IV_BYTES, bytes.length - TAG_BYTES)), decipher.final()]).toString('utf8');
    } catch {
      throw new CursorNotIssuedError();
    }
  }

  private requireKey(): Buffer {
    if (!this.key) throw new Error('This function is not granted the key secret page cursors are sealed with; it cannot make or read them.');
    return this.key;
  }
}

/** JSON, so no two scopes ever authenticate as the same bytes (a tenant name may hold any separator). */
const aadOf = (scope: readonly string[]) => Buffer.from(JSON.stringify(scope), 'utf8');
