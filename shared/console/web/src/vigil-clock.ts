import type { Endpoints } from './api.js';

/**
 * Vigil's clock, which "time left" is counted on: the browser's, moved by the offset last measured
 * from Vigil's own time. They differ on a `--virtual-clock` local cloud (its time moves only when
 * advanced) and by however far this machine's clock is off.
 */
let offsetMs = 0;

export const vigilNow = (): number => Date.now() + offsetMs;

/** Vigil's time as an answer gave it (a history's `now`). */
export function heardVigilTime(iso: string): void {
  const at = Date.parse(iso);
  if (Number.isFinite(at)) offsetMs = at - Date.now();
}

/**
 * Reads the local cloud's clock (`GET /_local/clock`), on the page's own origin when the local cloud
 * serves the page (its `/_local/` routes, the faults among them, answer there). A listing has no time
 * of its own; elsewhere the last offset stands.
 */
export async function readVigilClock(where: Endpoints): Promise<void> {
  if (!where.faults) return;
  try {
    const clock = (await (await fetch('/_local/clock')).json()) as { now?: unknown };
    if (typeof clock.now === 'number') offsetMs = clock.now - Date.now();
  } catch {
    // The offset measured last stands.
  }
}
