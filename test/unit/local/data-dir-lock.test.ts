import { spawn, type ChildProcess } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { lockDataDir } from '../../../shared/local/data-dir-lock.js';

const dirs: string[] = [];
const children: ChildProcess[] = [];
afterEach(() => {
  for (const child of children.splice(0)) child.kill('SIGKILL');
  for (const dir of dirs.splice(0)) rmSync(dir, { recursive: true, force: true });
});

function dataDir(): string {
  const dir = mkdtempSync(join(tmpdir(), 'vigil-lock-'));
  dirs.push(dir);
  return dir;
}

/** A live process that is not Vigil, and its start time as the kernel gives it (`/proc/<pid>/stat` field 22). */
function unrelatedProcess(): { pid: number; startedAt: string } {
  const child = spawn('sleep', ['30'], { stdio: 'ignore' });
  children.push(child);
  if (child.pid === undefined) throw new Error('sleep did not start');
  const stat = readFileSync(`/proc/${child.pid}/stat`, 'utf8');
  return { pid: child.pid, startedAt: stat.slice(stat.lastIndexOf(')') + 2).split(' ')[19] ?? '' };
}

const takeOver = (dir: string): string => {
  try {
    lockDataDir(dir).release();
    return 'taken over';
  } catch (error) {
    return String(error);
  }
};

// Restart review: a lock left by a kill -9 named a pid that, after a reboot or a container restart,
// belonged to another program, and `npm start` refused until the lock was deleted by hand.
describe.skipIf(process.platform !== 'linux')('the data-dir lock after a kill -9 (Linux: process start times)', () => {
  it('a lock whose pid now belongs to a process started later is taken over', () => {
    // Prepare
    const dir = dataDir();
    const other = unrelatedProcess();
    writeFileSync(join(dir, 'vigil.lock'), `${other.pid} ${Number(other.startedAt) - 1}`);
    // Act, assess
    expect(takeOver(dir)).toBe('taken over');
  });

  it('a lock whose owner still runs (its pid and start time) is refused, naming the pid', () => {
    // Prepare
    const dir = dataDir();
    const owner = unrelatedProcess();
    writeFileSync(join(dir, 'vigil.lock'), `${owner.pid} ${owner.startedAt}`);
    // Act, assess
    expect(takeOver(dir)).toContain(`in use by another Vigil (pid ${owner.pid})`);
  });

  it('a lock records the start time of the Vigil that holds it', () => {
    // Prepare
    const dir = dataDir();
    // Act
    const lock = lockDataDir(dir);
    const written = readFileSync(join(dir, 'vigil.lock'), 'utf8');
    lock.release();
    // Assess
    expect(written).toMatch(new RegExp(`^${process.pid} \\d+$`));
  });
});
