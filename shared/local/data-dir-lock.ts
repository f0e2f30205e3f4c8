import { openSync, readFileSync, rmSync, writeSync, closeSync } from 'node:fs';
import { join } from 'node:path';

/**
 * One `npm start` per data dir: a second one would find each region's database locked only once
 * it had half started. The lock file names the owner's pid; a lock whose owner is gone (a kill -9)
 * is taken over.
 */
export function lockDataDir(dataDir: string): { release(): void } {
  const path = join(dataDir, 'vigil.lock');
  for (let tries = 0; ; tries++) {
    try {
      const fd = openSync(path, 'wx');
      writeSync(fd, String(process.pid));
      closeSync(fd);
      return { release: () => rmSync(path, { force: true }) };
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code !== 'EEXIST' || tries > 0) throw error;
      const owner = Number(readFileSync(path, 'utf8').trim());
      if (Number.isInteger(owner) && owner > 0 && owner !== process.pid && isRunning(owner)) {
        throw new Error(`The data dir ${dataDir} is in use by another Vigil (pid ${owner}). Stop it, or pass another --data-dir.`);
      }
      rmSync(path, { force: true });
    }
  }
}

function isRunning(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch (error) {
    return (error as NodeJS.ErrnoException).code === 'EPERM';
  }
}
