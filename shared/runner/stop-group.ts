import { setTimeout as sleep } from 'node:timers/promises';
import type { ChildGroup } from './process-group.js';

export type Resolution = 'graceful' | 'force';

const POLL_MS = 20;

/**
 * SIGTERM to the whole group (once: `alreadyTerminated` when the caller sent it), then SIGKILL to
 * what is left at `terminateByMs` (seed 003: cleanup grace period). `graceful` when the group was
 * gone by then. Returns once no process of it is alive.
 */
export async function stopGroup(group: ChildGroup, terminateByMs: number | (() => number), options: { alreadyTerminated?: boolean; now?: () => number } = {}): Promise<Resolution> {
  const now = options.now ?? Date.now;
  // Read again on every poll: one Vigil moves (a terminate heard meanwhile) binds at once.
  const killAtMs = typeof terminateByMs === 'number' ? () => terminateByMs : terminateByMs;
  if (!options.alreadyTerminated) group.signal('SIGTERM');
  while (group.alive() && now() < killAtMs()) await sleep(POLL_MS);
  if (!group.alive()) return 'graceful';
  group.signal('SIGKILL');
  // SIGKILL cannot be ignored; the kernel reaps the group within moments.
  for (let i = 0; i < 250 && group.alive(); i++) await sleep(POLL_MS);
  return 'force';
}
