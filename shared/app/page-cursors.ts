import { createCipheriv, createDecipheriv, hkdfSync, randomBytes } from 'node:crypto';
import { CursorNotIssuedError } from '../domain/errors.js';
import { keyRingOf, type KeySource, type SigningKeys } from './keys/key-ring-cache.js';
import { splitKeyId, type RingKey } from './keys/key-ring.js';

/** The HKDF label of the cursor key: a key of its own, never the token HMAC key itself. */
const KEY_INFO = 'vigil page cursor v1';
const IV_BYTES = 12;
const TAG_BYTES = 16;

/**
 * Page cursors a caller can neither read nor forge: a listing's position, sealed with AES-256-GCM
 * under a key derived (HKDF-SHA256) from the region's token secret. The listing's `scope` (its route
 * and whose page it is) is authenticated with it, so a cursor opens only for the listing that gave it
 * out; any other cursor (tampered, another region's, made up, under a key rotated out) is refused as not issued.
 * A cursor is `<key id>.<sealed>`, the id naming the ring key its key is derived from.
 */
export class PageCursors {
  private readonly keys: SigningKeys | undefined;
  private readonly derived = new Map<string, Buffer>();

  /** `keys` are absent in functions that are not granted them; they never make or read a cursor. */
  constructor(keys: KeySource | undefined) {
    this.keys = keyRingOf(keys);
  }

  seal(position: string, scope: readonly string[]): string {
    const ringKey = this.requireKeys().signingKey();
    const iv = randomBytes(IV_BYTES);
    const cipher = createCipheriv('aes-256-gcm', this.cursorKey(ringKey), iv, { authTagLength: TAG_BYTES });
    cipher.setAAD(aadOf(scope));
    const sealed = Buffer.concat([cipher.update(position, 'utf8'), cipher.final()]);
    return `${ringKey.id}.${Buffer.concat([iv, sealed, cipher.getAuthTag()]).toString('base64url')}`;
  }

  /** The position `seal` was given for the same scope; throws `CursorNotIssuedError` for anything else. */
  async open(cursor: string, scope: readonly string[]): Promise<string> {
    const keys = this.requireKeys();
    const [keyId, sealedText] = splitKeyId(cursor, '.');
    if (keyId === undefined || sealedText === undefined) throw new CursorNotIssuedError();
    const bytes = Buffer.from(sealedText, 'base64url');
    // base64url decoding skips what it cannot read: only the exact text `seal` wrote is a cursor.
    if (bytes.length < IV_BYTES + TAG_BYTES || bytes.toString('base64url') !== sealedText) throw new CursorNotIssuedError();
    const ringKey = await keys.find(keyId);
    if (!ringKey) throw new CursorNotIssuedError();
    try {
      const decipher = createDecipheriv('aes-256-gcm', this.cursorKey(ringKey), bytes.subarray(0, IV_BYTES), { authTagLength: TAG_BYTES });
      decipher.setAAD(aadOf(scope));
      decipher.setAuthTag(bytes.subarray(bytes.length - TAG_BYTES));
      return Buffer.concat([decipher.update(bytes.subarray(IV_BYTES, bytes.length - TAG_BYTES)), decipher.final()]).toString('utf8');
    } catch {
      throw new CursorNotIssuedError();
    }
  }

  private cursorKey(ringKey: RingKey): Buffer {
    let key = this.derived.get(ringKey.id);
    if (!key) {
      key = Buffer.from(hkdfSync('sha256', Buffer.from(ringKey.key, 'utf8'), Buffer.alloc(0), KEY_INFO, 32));
      this.derived.set(ringKey.id, key);
    }
    return key;
  }

  private requireKeys(): SigningKeys {
    if (!this.keys) throw new Error('This function is not granted the key secret page cursors are sealed with; it cannot make or read them.');
    return this.keys;
  }
}

/** JSON, so no two scopes ever authenticate as the same bytes (a tenant name may hold any separator). */
const aadOf = (scope: readonly string[]) => Buffer.from(JSON.stringify(scope), 'utf8');
