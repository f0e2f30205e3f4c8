import { fork, type ChildProcess } from 'node:child_process';
import { closeSync, openSync, readFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import type { z } from 'zod';

const HERE = dirname(fileURLToPath(import.meta.url));
const alive = new Set<ChildProcess>();
process.once('exit', () => {
  for (const child of alive) child.kill('SIGKILL');
});

/**
 * A measured system in its own process (its own event loop and CPU, as `npm start` has), talked to
 * over IPC. Its output goes to `logFile`, quoted when it fails.
 */
export class BenchChild {
  private readonly inbox: unknown[] = [];
  private waiting: (() => void) | undefined;
  private exit: string | undefined;

  private constructor(
    private readonly child: ChildProcess,
    private readonly logFile: string,
  ) {
    child.on('message', (message) => {
      this.inbox.push(message);
      this.waiting?.();
    });
    child.once('exit', (code, signal) => {
      alive.delete(child);
      this.exit = `exited with ${signal ?? `code ${code}`}`;
      this.waiting?.();
    });
  }

  static start(script: string, args: string[], logFile: string): BenchChild {
    const log = openSync(logFile, 'a');
    try {
      const child = fork(join(HERE, script), args, {
        // BENCH_CPU_PROF=<dir>: a V8 CPU profile of each child, to see where the measured system spends its time.
        execArgv: ['--import', 'tsx', ...(process.env['BENCH_CPU_PROF'] ? ['--cpu-prof', `--cpu-prof-dir=${process.env['BENCH_CPU_PROF']}`] : [])],
        stdio: ['ignore', log, log, 'ipc'],
        env: { ...process.env, POWERTOOLS_METRICS_DISABLED: 'true', AWS_SDK_JS_NODE_VERSION_SUPPORT_WARNING_DISABLED: 'true' },
      });
      alive.add(child);
      return new BenchChild(child, logFile);
    } finally {
      closeSync(log);
    }
  }

  send(message: unknown): void {
    this.child.send(message as object);
  }

  /** The next message from the child, parsed; fails when the child dies or takes longer than `timeoutMs`. */
  async receive<T>(schema: z.ZodType<T>, timeoutMs: number): Promise<T> {
    const deadline = Date.now() + timeoutMs;
    while (this.inbox.length === 0) {
      if (this.exit !== undefined) throw new Error(`bench child ${this.exit}; its output:\n${this.tail()}`);
      const left = deadline - Date.now();
      if (left <= 0) throw new Error(`bench child sent nothing for ${timeoutMs} ms; its output:\n${this.tail()}`);
      await new Promise<void>((resolve) => {
        const timer = setTimeout(resolve, left);
        this.waiting = () => {
          clearTimeout(timer);
          resolve();
        };
      });
      this.waiting = undefined;
    }
    const message = this.inbox.shift();
    const parsed = schema.safeParse(message);
    if (!parsed.success) throw new Error(`unexpected message from the bench child: ${JSON.stringify(message)}`);
    return parsed.data;
  }

  async stop(): Promise<void> {
    if (this.exit !== undefined) return;
    const gone = new Promise<void>((resolve) => this.child.once('exit', () => resolve()));
    this.child.kill('SIGTERM');
    const timer = setTimeout(() => this.child.kill('SIGKILL'), 5_000);
    await gone;
    clearTimeout(timer);
  }

  private tail(): string {
    try {
      return readFileSync(this.logFile, 'utf8').trimEnd().split('\n').slice(-20).join('\n');
    } catch {
      return '(no output)';
    }
  }
}

/** `npm start`'s default thresholds (shared/local/cli-flags.ts), which the children's local clouds run with. */
export const NPM_START_THRESHOLDS = { gateFallbackSeconds: 300, stuckThresholdSeconds: 120, gateStuckThresholdSeconds: 180 };

/** In a child: sends one message to the parent; resolves once it is handed over (safe to exit then). */
export function toParent(message: unknown): Promise<void> {
  const send = process.send?.bind(process);
  if (!send) throw new Error('this script runs as a bench child (forked by test/bench/run.ts)');
  return new Promise((resolve, reject) => {
    send(message, undefined, {}, (error: Error | null) => (error ? reject(error) : resolve()));
  });
}
