import { randomBytes } from 'node:crypto';
import { existsSync, mkdirSync, readFileSync, renameSync, writeFileSync } from 'node:fs';
import { dirname } from 'node:path';

/** A local key (a region's worker tokens and page cursors, the gate's page cursors): generated once into the data dir, kept across restarts. */
export function loadOrCreateSecret(path: string): Buffer {
  if (!existsSync(path)) {
    mkdirSync(dirname(path), { recursive: true });
    // Written aside and renamed into place: a process killed mid-write never leaves an empty key.
    const aside = `${path}.${process.pid}.tmp`;
    writeFileSync(aside, randomBytes(32).toString('hex'), { mode: 0o600 });
    renameSync(aside, path);
  }
  return Buffer.from(readFileSync(path, 'utf8').trim(), 'utf8');
}
