import type { ChildGroup } from './process-group.js';

export type SupervisionEnd =
  | { kind: 'exited'; code: number | null; signal: NodeJS.Signals | null }
  | { kind: 'stop'; cause: 'vigil' | 'deadline' | 'operator'; atMs: number };

export interface SuperviseOptions {
  /** Vigil said stop (terminate, cancel). */
  signal: AbortSignal;
  /** The runner itself was told to stop (Ctrl-C): its children got SIGTERM already. */
  stopping?: AbortSignal;
  /** The earliest deadline the runner knows, read again on every tick (Vigil may move it). */
  deadlineMs: () => number | undefined;
  /** Work done every tick while the child runs (forwarding its checkpoints and progress). */
  onTick?: () => Promise<void>;
  tickMs?: number;
  now?: () => number;
}

/**
 * Waits for whichever comes first: the child exits, Vigil says stop, the runner is told to stop, or a
 * known deadline passes on the runner's own clock — the last keeps the bound when Vigil is unreachable.
 */
export async function superviseChild(group: ChildGroup, options: SuperviseOptions): Promise<SupervisionEnd> {
  const now = options.now ?? Date.now;
  const tickMs = options.tickMs ?? 100;
  let exit: { code: number | null; signal: NodeJS.Signals | null } | undefined;
  void group.exited.then((result) => (exit = result));
  let ticking = false;
  for (;;) {
    if (exit) {
      // The runner's stop sent the group SIGTERM, and its leader may die of it at once: what is left
      // of the group (the process doing the work) still gets the grace period to clean up (Vigil's, once it said stop).
      if (options.stopping?.aborted) return { kind: 'stop', cause: options.signal.aborted ? 'vigil' : 'operator', atMs: now() };
      // Whatever the child left behind in its group goes with it: no orphans.
      group.signal('SIGKILL');
      return { kind: 'exited', ...exit };
    }
    if (options.signal.aborted) return { kind: 'stop', cause: 'vigil', atMs: now() };
    if (options.stopping?.aborted) return { kind: 'stop', cause: 'operator', atMs: now() };
    const deadline = options.deadlineMs();
    if (deadline !== undefined && now() >= deadline) return { kind: 'stop', cause: 'deadline', atMs: now() };
    if (options.onTick && !ticking) {
      ticking = true;
      options
        .onTick()
        .catch(() => undefined)
        .finally(() => (ticking = false));
    }
    await Promise.race([group.exited, new Promise((resolve) => setTimeout(resolve, tickMs))]);
  }
}
