import { openSync, readFileSync, rmSync, writeSync, closeSync } from 'node:fs';
import { join } from 'node:path';

/**
 * One `npm start` per data dir: a second one would find each region's database locked only once
 * it had half started. The lock file names the owner's pid and, where the OS tells (Linux), when that
 * process started; a lock whose owner is gone (a kill -9) is taken over, also when its pid now
 * belongs to another process (after a reboot or a container restart pids are handed out again).
 */
export function lockDataDir(dataDir: string): { release(): void } {
  const path = join(dataDir, 'vigil.lock');
  for (let tries = 0; ; tries++) {
    try {
      const fd = openSync(path, 'wx');
      writeSync(fd, [process.pid, startTimeOf(process.pid)].filter((part) => part !== undefined).join(' '));
      closeSync(fd);
      return { release: () => rmSync(path, { force: true }) };
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code !== 'EEXIST' || tries > 0) throw error;
      const [pid, startedAt] = readFileSync(path, 'utf8').trim().split(' ');
      const owner = Number(pid);
      if (Number.isInteger(owner) && owner > 0 && owner !== process.pid && isRunning(owner, startedAt)) {
        throw new Error(`The data dir ${dataDir} is in use by another Vigil (pid ${owner}). Stop it, or pass another --data-dir.`);
      }
      rmSync(path, { force: true });
    }
  }
}

/** The process that wrote the lock still runs: its pid is alive and, when both are known, started when the lock says. */
function isRunning(pid: number, startedAt: string | undefined): boolean {
  try {
    process.kill(pid, 0);
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code !== 'EPERM') return false;
  }
  const now = startedAt === undefined ? undefined : startTimeOf(pid);
  return now === undefined || now === startedAt;
}

/** When the process started (clock ticks since boot, `/proc/<pid>/stat` field 22), where the OS tells. */
function startTimeOf(pid: number): string | undefined {
  try {
    const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
    // Fields after the command name, which is in parentheses and may hold spaces: field 3 onwards.
    return stat.slice(stat.lastIndexOf(')') + 2).split(' ')[22 - 3];
  } catch {
    return undefined;
  }
}
