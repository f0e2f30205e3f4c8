import { spawn, type ChildProcess } from 'node:child_process';

export interface ChildGroup {
  pid: number;
  /** Settles with the child's exit; the group may outlive it (background grandchildren). */
  exited: Promise<{ code: number | null; signal: NodeJS.Signals | null }>;
  signal(signal: NodeJS.Signals): void;
  /** True while any process of the group is alive. */
  alive(): boolean;
}

/** Groups this process started and has not seen end: stopped with it (see `stopLiveGroupsOnExit`). */
const live = new Set<ChildGroup>();

/** When the runner itself is told to stop, its children's groups go first: no orphans. */
export function stopLiveGroupsOnSignals(graceMs: number): void {
  const stop = (signal: NodeJS.Signals) => {
    for (const group of live) group.signal('SIGTERM');
    setTimeout(() => {
      for (const group of live) group.signal('SIGKILL');
      process.exit(signal === 'SIGINT' ? 130 : 143);
    }, graceMs).unref();
  };
  process.once('SIGINT', stop);
  process.once('SIGTERM', stop);
  process.once('exit', () => {
    for (const group of live) group.signal('SIGKILL');
  });
}

/** Starts `command` as the leader of a new process group, so a signal reaches everything it started. */
export function spawnGroup(command: string, args: readonly string[], env: NodeJS.ProcessEnv): ChildGroup {
  const child: ChildProcess = spawn(command, args, { detached: true, stdio: ['ignore', 'inherit', 'inherit'], env });
  const exited = new Promise<{ code: number | null; signal: NodeJS.Signals | null }>((resolve) => {
    child.once('exit', (code, signal) => resolve({ code, signal }));
    child.once('error', () => resolve({ code: 127, signal: null }));
  });
  const pid = child.pid ?? -1;
  const group: ChildGroup = {
    pid,
    exited,
    signal: (signal) => {
      try {
        process.kill(-pid, signal);
      } catch {
        // the group is gone already
      }
    },
    alive: () => {
      try {
        process.kill(-pid, 0);
        return true;
      } catch {
        return false;
      }
    },
  };
  live.add(group);
  void exited.then(() => {
    if (!group.alive()) live.delete(group);
  });
  return group;
}
