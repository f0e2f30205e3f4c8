import { spawn } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { beforeAll, describe, expect, it } from 'vitest';
import { useVigilProcess } from '../e2e/e2e-support.js';
import { ensurePythonVenv, missingPythonReason } from '../support/python-venv.js';

/** Pinned so that new checks arrive only when we choose to. */
const SCHEMATHESIS_REQUIREMENT = 'schemathesis==4.32.5';
const VENV_DIR = fileURLToPath(new URL('../../.venv-schemathesis', import.meta.url));
const CONFIG_FILE = fileURLToPath(new URL('./schemathesis.toml', import.meta.url));
const INSTALL_TIMEOUT_MS = 8 * 60_000;
/** Per listener; they run at once, so the whole fuzz stays well under 90 s on 2 cores. */
const FUZZ_SECONDS = 25;
const MAX_EXAMPLES = 10;

function unavailable(): string | undefined {
  const reason = missingPythonReason();
  if (reason !== undefined && process.env['CI'] === 'true') {
    throw new Error(`The Schemathesis fuzz must run in CI, but ${reason}. Install it in .ci/run.`);
  }
  if (reason !== undefined) console.warn(`SCHEMATHESIS FUZZ SKIPPED: ${reason}`);
  return reason;
}

interface FuzzRun {
  listener: string;
  exitCode: number | null;
  output: string;
  operations: number;
  cases: number;
}

const FUZZ_SEED = process.env['SCHEMATHESIS_SEED'] ?? (process.env['CI'] ? '20261126' : undefined);

function fuzz(schemathesis: string, listener: string, url: string): Promise<FuzzRun> {
  const args = [
    '--config-file', CONFIG_FILE, 'run', `${url}/openapi.json`,
    '--phases', 'examples,coverage,fuzzing',
    '--max-examples', String(MAX_EXAMPLES),
    '--max-time', String(FUZZ_SECONDS),
    '--workers', '1',
    '--request-timeout', '10',
    // CI replays one fixed seed, so a landing never depends on what a fresh random run happens to
    // find; a local run draws a new seed each time (printed in the output, and SCHEMATHESIS_SEED replays it).
    ...(FUZZ_SEED !== undefined ? ['--seed', FUZZ_SEED] : []),
    // Worker routes get a token that is wrong (403 as documented); client routes get a stand-in for
    // a SigV4 signature, which the local cloud does not check.
    '-H', 'x-vigil-token: fuzz',
    '-H', 'Authorization: AWS4-HMAC-SHA256 Credential=local',
  ];
  return new Promise((resolve, reject) => {
    const child = spawn(schemathesis, args, { stdio: ['ignore', 'pipe', 'pipe'], env: { ...process.env, NO_COLOR: '1', COLUMNS: '120' } });
    let output = '';
    child.stdout.on('data', (chunk: Buffer) => (output += chunk.toString()));
    child.stderr.on('data', (chunk: Buffer) => (output += chunk.toString()));
    const killer = setTimeout(() => child.kill('SIGKILL'), (FUZZ_SECONDS + 60) * 1000);
    child.once('error', reject);
    child.once('close', (exitCode) => {
      clearTimeout(killer);
      resolve({
        listener,
        exitCode,
        output,
        operations: Number(/Tested:\s+(\d+)/.exec(output)?.[1] ?? 0),
        cases: Number(/(\d+) generated/.exec(output)?.[1] ?? 0),
      });
    });
  });
}

async function documentedOperations(url: string | undefined): Promise<number> {
  const document = (await (await fetch(`${url}/openapi.json`)).json()) as { paths: Record<string, object> };
  return Object.values(document.paths).reduce((count, operations) => count + Object.keys(operations).length, 0);
}

const skip = unavailable();

describe.skipIf(skip !== undefined)('Schemathesis against every listener of npm start', () => {
  // On a fresh machine (CI) the venv is installed while npm start starts, not after it.
  let venvPython: Promise<string> | undefined;
  beforeAll(() => {
    venvPython = ensurePythonVenv(VENV_DIR, SCHEMATHESIS_REQUIREMENT);
    // Awaited by the test, which reports a failed install; not an unhandled rejection meanwhile.
    venvPython.catch(() => undefined);
  });
  const vigil = useVigilProcess({ regions: ['us-east-1', 'eu-west-1'] });

  it(
    'finds no 5xx and no answer that breaks the OpenAPI document',
    async () => {
      // Prepare
      if (!venvPython) throw new Error('the venv install did not start');
      const python = await venvPython;
      const schemathesis = python.replace(/python$/, 'schemathesis');
      const listeners: Record<string, string> = { gate: vigil.endpoints.gate, ...vigil.endpoints.regions };
      // Act
      const runs = await Promise.all(Object.entries(listeners).map(([name, url]) => fuzz(schemathesis, name, url)));
      // Assess
      for (const run of runs) {
        console.info(`schemathesis ${run.listener}: ${run.operations} operations, ${run.cases} cases, exit ${run.exitCode}`);
        expect(run.exitCode, `${run.listener}:\n${run.output.slice(-6000)}\nVigil:\n${vigil.logTail(20)}`).toBe(0);
        // Schemathesis leaves out the operation that serves the document it reads.
        expect(run.operations, run.output.slice(-2000)).toBe((await documentedOperations(listeners[run.listener])) - 1);
        expect(run.cases).toBeGreaterThan(0);
      }
    },
    INSTALL_TIMEOUT_MS + (FUZZ_SECONDS + 90) * 1000,
  );
});
