import { writeFileSync } from 'node:fs';
import { beforeAll, describe, inject } from 'vitest';
import { withDirLock } from './dir-lock.js';
import {
  motoLogFile,
  readMotoServerFile,
  readText,
  recordSkip,
  startFailureFile,
  startLockDir,
  writeMotoServerFile,
} from './emulator-run-files.js';
import { ensureMotoVenv, missingPythonReason, startMotoServer } from './moto-server.js';

/** The first run creates the venv and installs moto from PyPI: give that hook far more than the default. */
const EMULATOR_SETUP_TIMEOUT_MS = 10 * 60_000;

/** SDK client settings for the emulator; any client (SQS, Scheduler, EventBridge, DynamoDB) accepts them. */
export interface EmulatorClientConfig {
  endpoint: string;
  region: string;
  credentials: { accessKeyId: string; secretAccessKey: string };
}

export interface Emulator {
  /** Available inside tests and hooks (the endpoint is known after the suite's beforeAll). */
  clientConfig(): EmulatorClientConfig;
}

type Availability = { run: true } | { run: false; reason: string };

/**
 * A describe block for tests against the AWS API emulator: LocalStack when AWS_ENDPOINT_URL is set,
 * else a moto server shared by the whole run. Without python3 the block is skipped and says why
 * in its name, except under CI=true, where that fails the run.
 */
export function describeWithEmulator(name: string, body: (emulator: Emulator) => void): void {
  const availability = emulatorAvailability();
  const title = availability.run ? name : `${name} — SKIPPED: ${availability.reason}`;
  describe.skipIf(!availability.run)(title, () => {
    let endpoint: string | undefined;
    beforeAll(async () => {
      endpoint = await emulatorEndpoint();
    }, EMULATOR_SETUP_TIMEOUT_MS);
    body({
      clientConfig() {
        if (endpoint === undefined) throw new Error('The emulator endpoint is known only inside tests and hooks.');
        return {
          endpoint,
          region: process.env.AWS_REGION ?? 'us-east-1',
          credentials: { accessKeyId: 'test', secretAccessKey: 'test' },
        };
      },
    });
  });
}

function emulatorAvailability(): Availability {
  if (process.env.AWS_ENDPOINT_URL) return { run: true };
  const reason = missingPythonReason();
  if (reason === undefined) return { run: true };
  if (process.env.CI === 'true') {
    throw new Error(`The emulator integration suite must run in CI, but ${reason}. Install it in .ci/run.`);
  }
  console.warn(`EMULATOR SUITE SKIPPED: ${reason}`);
  const runDir = inject('emulatorRunDir');
  if (runDir) recordSkip(runDir, reason);
  return { run: false, reason };
}

let endpointOfThisProcess: Promise<string> | undefined;

/** The endpoint of this run's emulator; the first test process to ask starts it. */
function emulatorEndpoint(): Promise<string> {
  const external = process.env.AWS_ENDPOINT_URL;
  if (external) return Promise.resolve(external);
  endpointOfThisProcess ??= sharedMotoEndpoint();
  return endpointOfThisProcess;
}

async function sharedMotoEndpoint(): Promise<string> {
  const runDir = inject('emulatorRunDir');
  if (!runDir) throw new Error('test/support/emulator-global-setup.ts must be listed in globalSetup (vitest.config.ts).');
  return withDirLock(startLockDir(runDir), EMULATOR_SETUP_TIMEOUT_MS, async () => {
    const running = readMotoServerFile(runDir);
    if (running) return running.endpoint;
    // A failed start is not retried by every later test file: they all report the first failure.
    const earlierFailure = readText(startFailureFile(runDir));
    if (earlierFailure !== undefined) throw new Error(earlierFailure);
    try {
      const python = await ensureMotoVenv();
      const server = await startMotoServer(python, motoLogFile(runDir), inject('testRunnerPid'));
      writeMotoServerFile(runDir, server);
      return server.endpoint;
    } catch (error) {
      const message = error instanceof Error ? error.message : String(error);
      writeFileSync(startFailureFile(runDir), message);
      throw error;
    }
  });
}
