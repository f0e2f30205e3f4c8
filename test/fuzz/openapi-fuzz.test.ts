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
/**
 * Per listener, for the fuzzing phase alone (it repeats until the budget is spent); the listeners run at
 * once. The coverage phase before it runs whole, every operation (see `fuzz`).
 */
const FUZZ_SECONDS = 10;
/** A run that has not ended by then is killed (and fails): the coverage phase has no budget of its own. */
const RUN_LIMIT_MS = 150_000;
const MAX_EXAMPLES = 10;

/**
 * The operations each listener is fuzzed on. Both regions serve one document (the test checks it) from
 * the same handlers, and each used to be fuzzed on all of it: under CI's fixed seed largely the same
 * cases twice (without a time budget, 299 of 309 requests alike), at twice the cost on a 2-core machine. Now one region takes the pool operations and
 * the other the rest; together they are every operation of the document, each still run through the
 * coverage phase (boundary, missing and wrong-type values) and fuzzing.
 */
const POOL_PATHS = '^/pools';
const PLANS: Record<string, { filter: string[]; covers: (path: string) => boolean }> = {
  gate: { filter: [], covers: () => true },
  'us-east-1': { filter: ['--include-path-regex', POOL_PATHS], covers: (path) => new RegExp(POOL_PATHS).test(path) },
  'eu-west-1': { filter: ['--exclude-path-regex', POOL_PATHS], covers: (path) => !new RegExp(POOL_PATHS).test(path) },
};

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

/**
 * A listener's two runs: the examples and coverage phases (boundary, missing and wrong-type values),
 * finite, so run whole whatever the machine's speed: a time budget over them once left operations
 * untested on a loaded CI machine; then fuzzing, which repeats until its budget is spent.
 */
async function fuzz(schemathesis: string, listener: string, url: string): Promise<FuzzRun> {
  const covered = await schemathesisRun(schemathesis, listener, url, ['--phases', 'examples,coverage']);
  if (covered.exitCode !== 0) return covered;
  const fuzzed = await schemathesisRun(schemathesis, listener, url, ['--phases', 'fuzzing', '--max-time', String(FUZZ_SECONDS)]);
  return { ...fuzzed, output: `${covered.output}\n${fuzzed.output}`, operations: covered.operations, cases: covered.cases + fuzzed.cases };
}

function schemathesisRun(schemathesis: string, listener: string, url: string, phases: string[]): Promise<FuzzRun> {
  const plan = PLANS[listener];
  if (!plan) throw new Error(`no fuzz plan for the listener ${listener}`);
  const args = [
    '--config-file', CONFIG_FILE, 'run', `${url}/openapi.json`,
    ...phases,
    ...plan.filter,
    '--max-examples', String(MAX_EXAMPLES),
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
    const killer = setTimeout(() => child.kill('SIGKILL'), RUN_LIMIT_MS);
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

async function openApiDocument(url: string | undefined): Promise<{ paths: Record<string, object> }> {
  return (await (await fetch(`${url}/openapi.json`)).json()) as { paths: Record<string, object> };
}

/** The operations of a listener's document on the paths `covers` takes. */
async function documentedOperations(url: string | undefined, covers: (path: string) => boolean): Promise<number> {
  const document = await openApiDocument(url);
  return Object.entries(document.paths)
    .filter(([path]) => covers(path))
    .reduce((count, [, operations]) => count + Object.keys(operations).length, 0);
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
      expect(Object.keys(listeners).sort()).toEqual(Object.keys(PLANS).sort());
      // The regions split the operations between them (PLANS): together that is all of each only if they serve one document.
      expect(await openApiDocument(listeners['eu-west-1'])).toEqual(await openApiDocument(listeners['us-east-1']));
      // Act
      const runs = await Promise.all(Object.entries(listeners).map(([name, url]) => fuzz(schemathesis, name, url)));
      // Assess
      for (const run of runs) {
        console.info(`schemathesis ${run.listener}: ${run.operations} operations, ${run.cases} cases, exit ${run.exitCode}`);
        expect(run.exitCode, `${run.listener}:\n${run.output.slice(-6000)}\nVigil:\n${vigil.logTail(20)}`).toBe(0);
        // Schemathesis leaves out the operation that serves the document it reads.
        const covers = PLANS[run.listener]!.covers;
        expect(run.operations, run.output.slice(-2000)).toBe((await documentedOperations(listeners[run.listener], covers)) - (covers('/openapi.json') ? 1 : 0));
        expect(run.cases).toBeGreaterThan(0);
      }
    },
    INSTALL_TIMEOUT_MS + 2 * RUN_LIMIT_MS,
  );
});
