import { spawn, type ChildProcess } from 'node:child_process';
import { appendFileSync, closeSync, mkdtempSync, openSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { createServer, type AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { z } from 'zod';
import { VIRTUAL_CLOCK_FILE } from '../../shared/local/local-clock.js';
import { isAlive, isErrno } from './dir-lock.js';
import { pollUntil } from './poll.js';

const HERE = dirname(fileURLToPath(import.meta.url));
const REPO_ROOT = resolve(HERE, '..', '..');
/** Stops Vigil when this test process is gone, however it ended. */
const WATCHDOG = pathToFileURL(join(HERE, 'vigil-process-watchdog.ts')).href;
/** tsx compiles on start; a busy 2-core machine running other test files needs the slack. */
const START_TIMEOUT_MS = 60_000;
const STOP_TIMEOUT_MS = 10_000;
const START_ATTEMPTS = 4;

export interface VigilProcessOptions {
  /** `--regions`; one region is enough for region-manager tests and starts faster. */
  regions?: string[];
  stuckThresholdSeconds?: number;
  gateFallbackSeconds?: number;
  gateStuckThresholdSeconds?: number;
  /** `--virtual-clock`: time moves only when the test advances it (`VigilClient.advanceClock`), across restarts too. */
  virtualClock?: boolean;
}

const endpointsSchema = z.object({ gate: z.string(), regions: z.record(z.string(), z.string()) });
export type Endpoints = z.infer<typeof endpointsSchema>;

/** Processes still running in this test process, killed if it exits without stopping them. */
const running = new Set<number>();
process.once('exit', () => {
  for (const pid of running) killGroup(pid, 'SIGKILL');
});

/**
 * The real `npm start` (`tsx shared/local/main.ts`) in its own process group, with a fresh temp
 * data dir and free loopback ports. Output goes to a log file whose tail failure messages quote.
 * `kill('SIGKILL')` + `restart()` keeps the data dir, as a crash and a restart of the host would.
 */
export class VigilProcess {
  private child: ChildProcess | undefined;
  private exitReason: string | undefined;
  private current: Endpoints | undefined;
  private basePort: number | undefined;

  private constructor(
    readonly options: VigilProcessOptions,
    private readonly rootDir: string,
  ) {}

  static async start(options: VigilProcessOptions = {}): Promise<VigilProcess> {
    const rootDir = mkdtempSync(join(tmpdir(), 'vigil-e2e-'));
    const vigil = new VigilProcess(options, rootDir);
    try {
      await vigil.launch();
    } catch (error) {
      rmSync(rootDir, { recursive: true, force: true });
      throw error;
    }
    return vigil;
  }

  get dataDir(): string {
    return join(this.rootDir, 'data');
  }

  get logFile(): string {
    return join(this.rootDir, 'vigil.log');
  }

  get endpoints(): Endpoints {
    if (!this.current) throw new Error('Vigil is not running');
    return this.current;
  }

  /** The base URL of a region manager (the first region when none is named). */
  regionUrl(region = this.regions[0]): string {
    const url = region === undefined ? undefined : this.endpoints.regions[region];
    if (url === undefined) throw new Error(`No region '${region}' in ${JSON.stringify(this.endpoints)}`);
    return url;
  }

  get regions(): string[] {
    return this.options.regions ?? ['us-east-1', 'eu-west-1', 'ap-southeast-2'];
  }

  get pid(): number | undefined {
    return this.child?.pid;
  }

  /** The last lines of the process output, for failure messages. */
  logTail(lines = 30): string {
    let text: string;
    try {
      text = readFileSync(this.logFile, 'utf8');
    } catch {
      return '(no output)';
    }
    return text.trimEnd().split('\n').slice(-lines).join('\n');
  }

  /** Sends `signal` to the process group and waits until the process is gone. */
  async kill(signal: NodeJS.Signals = 'SIGKILL'): Promise<void> {
    const pid = this.child?.pid;
    if (pid === undefined) return;
    killGroup(pid, signal);
    await pollUntil(async () => (this.exitReason !== undefined && !isAlive(pid) ? true : undefined), {
      what: `Vigil (pid ${pid}) to exit after ${signal}`,
      timeoutMs: STOP_TIMEOUT_MS,
      intervalMs: 20,
    });
    running.delete(pid);
    this.child = undefined;
    this.current = undefined;
  }

  /** Starts again on the same data dir (after `kill`); the ports stay the same when they are free. */
  async restart({ virtualDowntimeMs = 0 }: { virtualDowntimeMs?: number } = {}): Promise<void> {
    if (this.child) throw new Error('Vigil is still running; kill it first');
    if (virtualDowntimeMs > 0) this.moveStoredVirtualTime(virtualDowntimeMs);
    await this.launch();
  }

  /**
   * With `--virtual-clock`, a restart resumes at the stored virtual time: no time passes while Vigil
   * is down unless the test says how long the host was down (the stored time moves by that much).
   */
  private moveStoredVirtualTime(downtimeMs: number): void {
    if (!this.options.virtualClock) throw new Error('virtualDowntimeMs needs a Vigil started with virtualClock: true');
    const file = join(this.dataDir, VIRTUAL_CLOCK_FILE);
    const { now } = z.object({ now: z.number() }).parse(JSON.parse(readFileSync(file, 'utf8')));
    writeFileSync(file, JSON.stringify({ now: now + downtimeMs }));
  }

  /** SIGTERM (a clean stop), SIGKILL if it does not go in time; then removes the temp dir. */
  async stop(): Promise<void> {
    try {
      await this.kill('SIGTERM').catch(() => this.kill('SIGKILL'));
    } finally {
      rmSync(this.rootDir, { recursive: true, force: true });
    }
  }

  private async launch(): Promise<void> {
    const failures: string[] = [];
    for (let attempt = 1; attempt <= START_ATTEMPTS; attempt++) {
      // Another process can take a free port before Vigil binds it: then Vigil exits and we try others.
      const basePort = this.basePort !== undefined && attempt === 1 ? this.basePort : await freeBasePort(1 + this.regions.length);
      try {
        await this.launchOn(basePort);
        this.basePort = basePort;
        return;
      } catch (error) {
        failures.push(`attempt ${attempt} on port ${basePort}: ${error instanceof Error ? error.message : String(error)}`);
        const pid = this.child?.pid;
        if (pid !== undefined) await this.kill('SIGKILL').catch(() => running.delete(pid));
        this.child = undefined;
        // Vigil names a taken port in words ("Port N is in use"), a Node error would say EADDRINUSE.
        if (!/EADDRINUSE|Port \d+ is in use/.test(this.logTail(10))) break;
      }
    }
    throw new Error(`Vigil did not start (${failures.join('; ')}). Its output:\n${this.logTail()}`);
  }

  private async launchOn(basePort: number): Promise<void> {
    const endpointsFile = join(this.dataDir, 'endpoints.json');
    // A restart must not mistake the previous run's map for readiness.
    rmSync(endpointsFile, { force: true });
    appendFileSync(this.logFile, `--- ${new Date().toISOString()} starting Vigil on port ${basePort}\n`);
    const args = ['--import', 'tsx', '--import', WATCHDOG, 'shared/local/main.ts', '--port', String(basePort), '--regions', this.regions.join(','), '--data-dir', this.dataDir];
    const { stuckThresholdSeconds, gateFallbackSeconds, gateStuckThresholdSeconds } = this.options;
    if (stuckThresholdSeconds !== undefined) args.push('--stuck-threshold-seconds', String(stuckThresholdSeconds));
    if (gateFallbackSeconds !== undefined) args.push('--gate-fallback-seconds', String(gateFallbackSeconds));
    if (gateStuckThresholdSeconds !== undefined) args.push('--gate-stuck-threshold-seconds', String(gateStuckThresholdSeconds));
    if (this.options.virtualClock) args.push('--virtual-clock');

    const log = openSync(this.logFile, 'a');
    let child: ChildProcess;
    try {
      child = spawn(process.execPath, args, { cwd: REPO_ROOT, detached: true, stdio: ['ignore', log, log] });
    } finally {
      closeSync(log);
    }
    this.child = child;
    this.exitReason = undefined;
    child.once('exit', (code, signal) => (this.exitReason = `exited with ${signal ?? `code ${code}`}`));
    child.once('error', (error) => (this.exitReason = `failed to start: ${error.message}`));
    if (child.pid !== undefined) running.add(child.pid);

    this.current = await pollUntil(
      async () => {
        if (this.exitReason !== undefined) throw new Error(`Vigil ${this.exitReason}`);
        const endpoints = readEndpoints(endpointsFile);
        if (!endpoints) return undefined;
        const urls = [endpoints.gate, ...Object.values(endpoints.regions)];
        const healthy = await Promise.all(urls.map(answersHealth));
        return healthy.every(Boolean) ? endpoints : undefined;
      },
      { what: () => `${endpointsFile} and GET /health on every listener`, timeoutMs: START_TIMEOUT_MS, intervalMs: 50 },
    );
  }
}

function readEndpoints(file: string): Endpoints | undefined {
  try {
    return endpointsSchema.parse(JSON.parse(readFileSync(file, 'utf8')));
  } catch {
    return undefined; // not written yet, or caught mid-write
  }
}

async function answersHealth(url: string): Promise<boolean> {
  try {
    const response = await fetch(`${url}/health`, { signal: AbortSignal.timeout(2_000) });
    await response.arrayBuffer();
    return response.status === 200;
  } catch {
    return false;
  }
}

function killGroup(pid: number, signal: NodeJS.Signals): void {
  try {
    process.kill(-pid, signal);
  } catch (error) {
    if (!isErrno(error, 'ESRCH')) throw error;
  }
}

/** A port N such that N … N+count-1 are free on loopback right now (the gate on N, regions after it). */
export async function freeBasePort(count: number): Promise<number> {
  for (let attempt = 0; attempt < 50; attempt++) {
    const first = await listenOn(0);
    if (!first) continue;
    const port = (first.address() as AddressInfo).port;
    const held = [first];
    for (let next = port + 1; next < port + count && next <= 65_535; next++) {
      const server = await listenOn(next);
      if (!server) break;
      held.push(server);
    }
    await Promise.all(held.map((server) => new Promise((resolve) => server.close(resolve))));
    if (held.length === count) return port;
  }
  throw new Error(`Found no ${count} consecutive free loopback ports`);
}

function listenOn(port: number): Promise<ReturnType<typeof createServer> | undefined> {
  return new Promise((resolve) => {
    const server = createServer();
    server.once('error', () => resolve(undefined));
    server.listen(port, '127.0.0.1', () => resolve(server));
  });
}
