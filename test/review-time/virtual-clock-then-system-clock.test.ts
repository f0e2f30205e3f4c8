import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { localClock } from '../../shared/local/local-clock.js';

/**
 * Review (time): a data dir run with `--virtual-clock` keeps its time in virtual-clock.json so that
 * "time never goes back" (README, the virtual clock). Restarted on the same data dir WITHOUT the
 * flag, `localClock` (shared/local/local-clock.ts:26-27) takes the system clock and ignores the
 * stored time: after a virtual advance past the wall clock, time goes back by the advance. Every
 * stored `startedAt`, `lastHealthAt`, `timerDueAt` is then in the future: a job runs that much past
 * its timeout (its deadline is stored), a silent worker counts as healthy that much longer, and the
 * virtual time, when the flag comes back, jumps ahead over everything decided meanwhile.
 */
describe('a data dir that ran on the virtual clock, restarted on the system clock', () => {
  let dataDir: string;
  beforeEach(() => void (dataDir = mkdtempSync(join(tmpdir(), 'vigil-clock-'))));
  afterEach(() => rmSync(dataDir, { recursive: true, force: true }));

  it('never starts at a time before the one its stored decisions were made at (or refuses to start)', async () => {
    // Prepare: the virtual clock is advanced 6 h past the wall clock (decisions are stored at that time)
    const virtual = localClock({ dataDir, virtualClock: true });
    for (let hour = 0; hour < 6; hour++) await virtual.advance?.({ ms: 3_600_000 });
    const stored = virtual.scheduler.now();
    // Act: the same data dir without --virtual-clock
    let restarted;
    try {
      restarted = localClock({ dataDir });
    } catch {
      return; // refusing to start on a clock behind the data dir's time is a fine answer
    }
    // Assess
    expect(restarted.scheduler.now()).toBeGreaterThanOrEqual(stored);
  });
});
