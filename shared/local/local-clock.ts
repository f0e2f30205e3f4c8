import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { systemScheduler } from '../adapters/local/system-scheduler.js';
import { VirtualClock } from '../adapters/local/virtual-clock.js';
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
  if (options.clock instanceof VirtualClock) return virtualLocalClock(options.clock, () => undefined);
  if (options.clock) return { scheduler: options.clock };
  if (!options.virtualClock) return { scheduler: systemScheduler() };
  const file = join(options.dataDir, VIRTUAL_CLOCK_FILE);
  const clock = new VirtualClock(storedTime(file) ?? Date.now());
  const save = () => writeFileSync(file, JSON.stringify({ now: clock.now() }));
  save();
  return virtualLocalClock(clock, save);
}

function virtualLocalClock(clock: VirtualClock, save: () => void): LocalClock {
  return {
    scheduler: clock,
    virtual: clock,
    advance: async (to) => {
      const now = 'ms' in to ? await clock.advance(to.ms) : await clock.advanceTo(to.to);
      save();
      return now;
    },
  };
}

function storedTime(file: string): number | undefined {
  let text: string;
  try {
    text = readFileSync(file, 'utf8');
  } catch {
    return undefined;
  }
  const now: unknown = (JSON.parse(text) as { now?: unknown }).now;
  if (typeof now !== 'number' || !Number.isFinite(now)) throw new Error(`${file} holds no virtual time ({"now": <epoch ms>}); delete it to start from the system time`);
  return now;
}
