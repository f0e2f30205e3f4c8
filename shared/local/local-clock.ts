import { readFileSync, renameSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { systemScheduler } from '../adapters/local/system-scheduler.js';
import { VirtualClock } from '../adapters/local/virtual-clock.js';
import { systemClock } from '../ports/clock.js';
import type { Scheduler } from '../ports/scheduler.js';

/** In the data dir: `{"now": <epoch ms>}`, the virtual time a restart resumes from. */
export const VIRTUAL_CLOCK_FILE = 'virtual-clock.json';

/**
 * The time source of a local cloud: the system clock, or (`--virtual-clock`) a virtual one that moves
 * only through `POST /_local/clock/advance`. The virtual time is kept in the data dir after every
 * advance, so a restarted process resumes where time stood: it never goes back, and a restart costs
 * no time of its own.
 */
export interface LocalClock {
  scheduler: Scheduler;
  /** Present in virtual-clock mode only. */
  virtual?: VirtualClock;
  /** Advances the virtual clock and records the new time; answers once settled. */
  advance?(to: { ms: number } | { to: number }): Promise<number>;
}

export function localClock(options: { dataDir: string; virtualClock?: boolean; clock?: Scheduler }): LocalClock {
  if (options.clock instanceof VirtualClock) return virtualLocalClock(options.clock);
  if (options.clock) return { scheduler: options.clock };
  const file = join(options.dataDir, VIRTUAL_CLOCK_FILE);
  if (!options.virtualClock) return systemLocalClock(options.dataDir, file);
  // Recorded at every step of an advance, before what falls due then runs (and writes its decisions):
  // a kill -9 mid-advance restarts at a time no earlier than any decision stored. Whole or not at all.
  const save = (now: number) => {
    writeFileSync(`${file}.tmp`, JSON.stringify({ now }));
    renameSync(`${file}.tmp`, file);
  };
  const start = storedTime(file) ?? Date.now();
  save(start);
  return virtualLocalClock(new VirtualClock(start, save));
}

/**
 * The system clock on a data dir that may have run on the virtual one. Its stored decisions were made
 * at the stored virtual time: while that is ahead of the system clock, starting would move time back
 * (jobs would run past their timeouts, silent workers count as healthy), so it is refused. Once the
 * system clock has passed it, the stored time is dropped: this run's decisions are made later, and a
 * later `--virtual-clock` run must start from the system time, not go back to before them.
 */
function systemLocalClock(dataDir: string, file: string): LocalClock {
  const stored = storedTime(file);
  const now = systemClock.now();
  if (stored !== undefined && stored > now) {
    throw new VirtualTimeAheadError(dataDir, stored, now);
  }
  if (stored !== undefined) rmSync(file, { force: true });
  return { scheduler: systemScheduler() };
}

export class VirtualTimeAheadError extends Error {
  constructor(dataDir: string, storedMs: number, nowMs: number) {
    super(
      `The data dir ${dataDir} ran on the virtual clock, which stands at ${new Date(storedMs).toISOString()} (${VIRTUAL_CLOCK_FILE}), ` +
        `${formatAhead(storedMs - nowMs)} ahead of the system clock: started without --virtual-clock its time would go back, ` +
        `and its jobs would run past their timeouts. Pass --virtual-clock to resume it, or pass another --data-dir.`,
    );
    this.name = 'VirtualTimeAheadError';
  }
}

const formatAhead = (ms: number): string => (ms >= 3_600_000 ? `${(ms / 3_600_000).toFixed(1)} h` : ms >= 60_000 ? `${(ms / 60_000).toFixed(1)} min` : `${(ms / 1000).toFixed(1)} s`);

function virtualLocalClock(clock: VirtualClock): LocalClock {
  return {
    scheduler: clock,
    virtual: clock,
    advance: (to) => ('ms' in to ? clock.advance(to.ms) : clock.advanceTo(to.to)),
  };
}

function storedTime(file: string): number | undefined {
  let text: string;
  try {
    text = readFileSync(file, 'utf8');
  } catch {
    return undefined;
  }
  let now: unknown;
  try {
    now = (JSON.parse(text) as { now?: unknown } | null)?.now;
  } catch {
    now = undefined;
  }
  if (typeof now !== 'number' || !Number.isFinite(now)) throw new Error(`${file} holds no virtual time ({"now": <epoch ms>}); delete it to start from the system time`);
  return now;
}
