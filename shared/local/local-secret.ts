import { randomBytes } from 'node:crypto';
import { existsSync, mkdirSync, readFileSync, renameSync, writeFileSync } from 'node:fs';
import { dirname } from 'node:path';

/** The workflow-token key of a local region: generated once into the data dir, kept across restarts. */
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
