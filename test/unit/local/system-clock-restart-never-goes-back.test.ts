import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { localClock, VIRTUAL_CLOCK_FILE, VirtualTimeAheadError } from '../../../shared/local/local-clock.js';

/**
 * Proves that a data dir that ran on `--virtual-clock` never has its time go back when restarted
 * without the flag. Its stored decisions (`startedAt`, `lastHealthAt`, `timerDueAt`) were made at the
 * virtual time kept in virtual-clock.json; the system clock used to ignore it, so after a virtual
 * advance past the wall clock time went back by the advance: a job ran that much past its timeout, a
 * silent worker counted as healthy that much longer, and the virtual time, when the flag came back,
 * jumped ahead over everything decided meanwhile. While the virtual time is ahead, the start is
 * refused saying how to go on; once the system clock has passed it, the system clock runs and the
 * stored time is dropped, so a later virtual run starts from the system time, not before it.
 */
describe('a data dir that ran on the virtual clock, restarted on the system clock', () => {
  let dataDir: string;
  beforeEach(() => void (dataDir = mkdtempSync(join(tmpdir(), 'vigil-clock-'))));
  afterEach(() => rmSync(dataDir, { recursive: true, force: true }));

  it('with its virtual time ahead of the system clock: refused, naming --virtual-clock and --data-dir', async () => {
    // Prepare: the virtual clock is advanced 6 h past the wall clock (decisions are stored at that time)
    const virtual = localClock({ dataDir, virtualClock: true });
    for (let hour = 0; hour < 6; hour++) await virtual.advance?.({ ms: 3_600_000 });
    const stored = virtual.scheduler.now();
    // Act
    const restart = () => localClock({ dataDir });
    // Assess: it would have started at the system time, 6 h before the stored decisions
    expect(restart).toThrow(VirtualTimeAheadError);
    expect(restart).toThrow(/ahead of the system clock.*Pass --virtual-clock to resume it, or pass another --data-dir/);
    // The stored time is kept for the run that resumes it
    expect(localClock({ dataDir, virtualClock: true }).scheduler.now()).toBe(stored);
  });

  it('with its virtual time behind the system clock: runs on the system clock, and a later virtual run starts no earlier', () => {
    // Prepare: a virtual run that stopped an hour ago
    writeFileSync(join(dataDir, VIRTUAL_CLOCK_FILE), JSON.stringify({ now: Date.now() - 3_600_000 }));
    // Act
    const system = localClock({ dataDir });
    const systemStartedAt = system.scheduler.now();
    const virtualAgain = localClock({ dataDir, virtualClock: true });
    // Assess: the virtual run resumes from the system time, after the system run's decisions, not an hour before them
    expect(system.virtual).toBeUndefined();
    expect(virtualAgain.scheduler.now()).toBeGreaterThanOrEqual(systemStartedAt);
  });
});
