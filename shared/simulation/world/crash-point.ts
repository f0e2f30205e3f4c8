import type { Rng } from './rng.js';

/**
 * Where an invocation drawn to crash dies: at its first publish, arm or withdrawal after a write (the
 * original point: the state written, its effects not), or just before or just after its k-th store
 * write call (the k-th durable, nothing later). A point the invocation never reaches leaves it alive.
 */
export type CrashPoint = { at: 'effects' } | { at: 'before-write' | 'after-write'; write: number };

/** The last write number drawn: a pool stop's chunks or a sweep's passes make more, rarely so many. */
const LATEST_WRITE = 12;

/** k ≥ 1 halving in likelihood (1: ½, 2: ¼, …): most invocations make one write or a few. */
function drawWriteNumber(rng: Rng): number {
  let write = 1;
  while (write < LATEST_WRITE && rng.chance(0.5)) write++;
  return write;
}

/** Whether a new invocation crashes (with probability `rate`), and where: each kind of point a third of the time. */
export function drawCrashPoint(rng: Rng, rate: number): CrashPoint | undefined {
  if (!rng.chance(rate)) return undefined;
  const at = rng.pick(['effects', 'before-write', 'after-write'] as const);
  return at === 'effects' ? { at } : { at, write: drawWriteNumber(rng) };
}

/** How a crash is named in the trace and counted: `before write 2`, `after write 1`, `at the effects`. */
export function describeCrashPoint(point: CrashPoint): string {
  return point.at === 'effects' ? 'at the effects' : `${point.at === 'before-write' ? 'before' : 'after'} write ${point.write}`;
}
