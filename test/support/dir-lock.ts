import { mkdir, readFile, rm, stat, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { pollUntil } from './poll.js';

/** A lock younger than this may not have its pid file written yet. */
const PID_GRACE_MS = 10_000;

/**
 * Runs `fn` while holding a lock directory (mkdir is atomic), so concurrent test processes,
 * or two test runs in one work tree, do not set up the same thing twice at once.
 */
export async function withDirLock<T>(lockDir: string, timeoutMs: number, fn: () => Promise<T>): Promise<T> {
  await pollUntil(() => tryAcquire(lockDir), { what: `the lock ${lockDir}`, timeoutMs, intervalMs: 200 });
  try {
    return await fn();
  } finally {
    await rm(lockDir, { recursive: true, force: true });
  }
}

async function tryAcquire(lockDir: string): Promise<true | undefined> {
  try {
    await mkdir(lockDir);
  } catch (error) {
    if (!isErrno(error, 'EEXIST')) throw error;
    if (await isStale(lockDir)) await rm(lockDir, { recursive: true, force: true });
    return undefined;
  }
  await writeFile(join(lockDir, 'pid'), String(process.pid));
  return true;
}

async function isStale(lockDir: string): Promise<boolean> {
  const pid = Number(await readFile(join(lockDir, 'pid'), 'utf8').catch(() => ''));
  if (Number.isInteger(pid) && pid > 0) return !isAlive(pid);
  const createdAt = await stat(lockDir).then((s) => s.mtimeMs, () => Date.now());
  return Date.now() - createdAt > PID_GRACE_MS;
}

export function isAlive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch (error) {
    return isErrno(error, 'EPERM');
  }
}

export function isErrno(error: unknown, code: string): boolean {
  return error instanceof Error && 'code' in error && error.code === code;
}
