import { spawn, type ChildProcess } from 'node:child_process';
import { constants } from 'node:os';
import type { Writable } from 'node:stream';
import { setLongTimeout } from '../ports/long-timeout.js';
import { groupHasLiveMembers } from './group-members.js';

export interface ChildGroup {
  pid: number;
  /** Settles with the child's exit; the group may outlive it (background grandchildren). */
  exited: Promise<{ code: number | null; signal: NodeJS.Signals | null }>;
  signal(signal: NodeJS.Signals): void;
  /** True while any process of the group is alive. */
  alive(): boolean;
}

/** Groups this process started and has not seen end: stopped with it (see `stopLiveGroupsOnSignals`). */
const live = new Set<ChildGroup>();

/** How often a group whose leader exited is checked for members left behind. */
const GONE_POLL_MS = 200;

const STOP_SIGNALS = ['SIGINT', 'SIGTERM', 'SIGHUP'] as const;

const signalLiveGroups = (signal: NodeJS.Signals) => {
  for (const group of live) group.signal(signal);
};

function killLiveGroupsAndExit(signal: NodeJS.Signals): never {
  signalLiveGroups('SIGKILL');
  process.exit(128 + constants.signals[signal]);
}

/** How long past the grace period a runner stopping on its own may take to report what it stopped. */
const REPORT_SLACK_MS = 15_000;

/**
 * When the runner itself is told to stop, its children's groups go first: no orphans. The first
 * signal asks them (SIGTERM); the signal returned is aborted at once, so the runner starts nothing
 * new, kills what is left at the grace period's end and reports what it stopped. Should it not get
 * there, everything is killed a little later; a second signal kills them at once.
 */
export function stopLiveGroupsOnSignals(graceMs: number): AbortSignal {
  const stopping = new AbortController();
  const stop = (signal: NodeJS.Signals) => {
    if (stopping.signal.aborted) killLiveGroupsAndExit(signal);
    stopping.abort();
    signalLiveGroups('SIGTERM');
    // `--grace` may be longer than setTimeout waits.
    setLongTimeout(() => killLiveGroupsAndExit(signal), graceMs + REPORT_SLACK_MS, { ref: false });
  };
  for (const signal of STOP_SIGNALS) process.on(signal, stop);
  process.once('exit', () => signalLiveGroups('SIGKILL'));
  return stopping.signal;
}

/** Drops a group from `live` once none of its processes runs: its pgid may then belong to a stranger. */
function forgetWhenGone(group: ChildGroup, releaseGuard: () => void): void {
  if (!group.alive()) {
    live.delete(group);
    releaseGuard();
    return;
  }
  setTimeout(() => forgetWhenGone(group, releaseGuard), GONE_POLL_MS).unref();
}

/**
 * The group's guard against a runner that dies without stopping it (SIGKILL, the OOM killer): a
 * shell outside the group, reading a pipe from this process. The read ends when this process is
 * gone; unless it was told the group ended first, it sends the group SIGTERM and, after the grace
 * period, SIGKILL. The group is detached (so the runner's own signals reach all of it), and nothing
 * else would ever stop it.
 */
const GUARD_SCRIPT = `IFS= read -r said
[ "$said" = released ] && exit 0
kill -s TERM -- "-$1" 2>/dev/null || exit 0
waited=0
while kill -s 0 -- "-$1" 2>/dev/null; do
  [ "$waited" -ge "$2" ] && { kill -s KILL -- "-$1" 2>/dev/null; exit 0; }
  sleep 0.2
  waited=$((waited + 1))
done
exit 0`;

function guardGroup(pgid: number, graceMs: number): () => void {
  // The grace period in the script's 0.2 s steps: it stops waiting as soon as the group is gone, so
  // its SIGKILL never reaches a group id the system has given to someone else since.
  const steps = Math.ceil(Math.max(0, graceMs) / 200);
  const guard = spawn('sh', ['-c', GUARD_SCRIPT, 'vigil-group-guard', String(pgid), String(steps)], {
    detached: true,
    stdio: ['pipe', 'ignore', 'ignore'],
  });
  guard.once('error', () => undefined);
  guard.stdin?.on('error', () => undefined);
  guard.unref();
  (guard.stdin as { unref?: () => void } | null)?.unref?.();
  return () => guard.stdin?.end('released\n');
}

/**
 * The command starts only once its group's guard runs: a runner killed between the two (SIGKILL can
 * land between any two lines) must not leave a group that nobody guards. The shell waits for `go` on
 * fd 3, then becomes the command (the same pid, so the group's id) with fd 3 closed; should the runner
 * die first, it reads the end of the pipe and never starts it.
 */
export const START_WHEN_GUARDED = 'IFS= read -r go <&3; [ "$go" = go ] || exit 0; exec 3<&-; exec "$@"';

/** What `spawnGroup` hands exec: the guarded start's shell, then the command (its limits are exec's: command-line-limits.ts). */
export const groupArgv = (command: string, args: readonly string[]): string[] => ['sh', '-c', START_WHEN_GUARDED, 'vigil-group', command, ...args];

/**
 * Starts `command` as the leader of a new process group, so a signal reaches everything it started;
 * a guard stops the group `graceMs` after SIGTERM should this process die without doing it.
 */
export function spawnGroup(command: string, args: readonly string[], env: NodeJS.ProcessEnv, graceMs: number): ChildGroup {
  const [file = 'sh', ...argv] = groupArgv(command, args);
  const child: ChildProcess = spawn(file, argv, {
    detached: true,
    stdio: ['ignore', 'inherit', 'inherit', 'pipe'],
    env,
  });
  const exited = new Promise<{ code: number | null; signal: NodeJS.Signals | null }>((resolve) => {
    child.once('exit', (code, signal) => resolve({ code, signal }));
    child.once('error', () => resolve({ code: 127, signal: null }));
  });
  const pid = child.pid ?? -1;
  const group: ChildGroup = {
    pid,
    exited,
    signal: (signal) => {
      if (pid <= 0) return; // it never started, and -(-1) would be init
      try {
        process.kill(-pid, signal);
      } catch {
        // the group is gone already
      }
    },
    alive: () => groupHasLiveMembers(pid),
  };
  const release = pid > 0 ? guardGroup(pid, graceMs) : () => undefined;
  const startGate = child.stdio[3] as Writable | null | undefined;
  startGate?.on('error', () => undefined);
  startGate?.end('go\n');
  live.add(group);
  void exited.then(() => forgetWhenGone(group, release));
  return group;
}
