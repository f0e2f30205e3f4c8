import { randomBytes } from 'node:crypto';
import { existsSync, mkdirSync, readFileSync, renameSync, writeFileSync } from 'node:fs';
import { dirname } from 'node:path';
import { KeyRingCache } from '../app/keys/key-ring-cache.js';
import { parseKeyRing } from '../app/keys/key-ring.js';
import type { Clock } from '../ports/clock.js';

/**
 * A local key ring: the key file as a deployed secret's value, a bare key (as created) or a JSON ring
 * written by hand to try rotation, re-read like Secrets Manager when a token names a key it lacks.
 */
export function loadOrCreateKeyRing(path: string, clock: Clock): KeyRingCache {
  const read = () => parseKeyRing(loadOrCreateKey(path));
  return new KeyRingCache(read(), async () => read(), () => clock.now());
}

/** A local key file's text (a region's worker tokens and page cursors, the gate's page cursors): generated once into the data dir, kept across restarts. */
function loadOrCreateKey(path: string): string {
  if (!existsSync(path)) {
    mkdirSync(dirname(path), { recursive: true });
    // Written aside and renamed into place: a process killed mid-write never leaves an empty key.
    const aside = `${path}.${process.pid}.tmp`;
    writeFileSync(aside, randomBytes(32).toString('hex'), { mode: 0o600 });
    renameSync(aside, path);
  }
  return readFileSync(path, 'utf8').trim();
}
