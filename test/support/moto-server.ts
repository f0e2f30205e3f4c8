import { spawn } from 'node:child_process';
import { closeSync, openSync } from 'node:fs';
import { readFile } from 'node:fs/promises';
import { createServer, type AddressInfo } from 'node:net';
import { fileURLToPath } from 'node:url';
import { isAlive, isErrno } from './dir-lock.js';
import { pollUntil } from './poll.js';
import { ensurePythonVenv } from './python-venv.js';

export { missingPythonReason } from './python-venv.js';

/** Pinned so that emulator behaviour changes only when we choose to. */
export const MOTO_REQUIREMENT = 'moto[server]==5.2.5';
const START_TIMEOUT_MS = 60_000;
const START_ATTEMPTS = 3;

/**
 * Runs moto's server and exits when the test runner's process is gone, so a killed test run does not
 * leave an emulator behind. argv: runner pid, then moto.server's own arguments.
 */
const MOTO_LAUNCHER = `
import os, sys, threading, time
from moto.server import main
runner_pid = int(sys.argv[1])
def exit_when_runner_is_gone():
    while True:
        time.sleep(2)
        try:
            os.kill(runner_pid, 0)
        except ProcessLookupError:
            os._exit(0)
threading.Thread(target=exit_when_runner_is_gone, daemon=True).start()
main(sys.argv[2:])
`;

/** The project-local venv moto is installed into. */
export const MOTO_VENV_DIR = fileURLToPath(new URL('../../.venv-moto', import.meta.url));

/** Creates the venv and installs moto into it unless a previous run did; returns the venv's python. */
export const ensureMotoVenv = (): Promise<string> => ensurePythonVenv(MOTO_VENV_DIR, MOTO_REQUIREMENT);

export interface MotoServer {
  endpoint: string;
  pid: number;
}

/** Starts moto on a free loopback port and waits until it answers. Output goes to `logFile`. */
export async function startMotoServer(python: string, logFile: string, runnerPid: number): Promise<MotoServer> {
  const failures: string[] = [];
  // Another process can take the free port before moto binds it: then moto exits and we try another.
  for (let attempt = 1; attempt <= START_ATTEMPTS; attempt++) {
    const port = await freeLoopbackPort();
    const endpoint = `http://127.0.0.1:${port}`;
    const log = openSync(logFile, 'a');
    const child = spawn(python, ['-c', MOTO_LAUNCHER, String(runnerPid), '-H', '127.0.0.1', '-p', String(port)], {
      detached: true,
      stdio: ['ignore', log, log],
    });
    closeSync(log);
    child.unref();
    let exit: string | undefined;
    child.once('exit', (code, signal) => (exit = `exited with ${signal ?? code}`));
    child.once('error', (error) => (exit = `failed to start: ${error.message}`));
    try {
      await pollUntil(
        async () => {
          if (exit) throw new Error(exit);
          return (await answers(endpoint)) ? true : undefined;
        },
        { what: `moto on ${endpoint}`, timeoutMs: START_TIMEOUT_MS },
      );
      if (child.pid === undefined) throw new Error('no pid');
      return { endpoint, pid: child.pid };
    } catch (error) {
      failures.push(`attempt ${attempt}: ${error instanceof Error ? error.message : String(error)}`);
      if (child.pid !== undefined) await stopMotoServer(child.pid);
    }
  }
  const log = await readFile(logFile, 'utf8').catch(() => '');
  throw new Error(
    `moto server did not start (${failures.join('; ')}). Its output:\n${tail(log)}\n` +
      `If the venv is broken, delete it and run the tests again.`,
  );
}

/** Stops the server's process group; escalates to SIGKILL if it does not go. */
export async function stopMotoServer(pid: number): Promise<void> {
  for (const signal of ['SIGTERM', 'SIGKILL'] as const) {
    try {
      process.kill(-pid, signal);
    } catch (error) {
      if (isErrno(error, 'ESRCH')) return;
      throw error;
    }
    const gone = await pollUntil(async () => (isAlive(pid) ? undefined : true), {
      what: `moto (pid ${pid}) to stop`,
      timeoutMs: 5_000,
    }).catch(() => false);
    if (gone) return;
  }
}

async function answers(endpoint: string): Promise<boolean> {
  try {
    await fetch(`${endpoint}/moto-api/`, { signal: AbortSignal.timeout(1_000) });
    return true;
  } catch {
    return false;
  }
}

function freeLoopbackPort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const server = createServer();
    server.once('error', reject);
    server.listen(0, '127.0.0.1', () => {
      const { port } = server.address() as AddressInfo;
      server.close(() => resolve(port));
    });
  });
}

const tail = (text: string, lines = 40): string => text.trimEnd().split('\n').slice(-lines).join('\n');
