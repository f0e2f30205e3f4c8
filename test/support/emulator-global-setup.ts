import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { TestProject } from 'vitest/node';
import { readMotoServerFile, readSkipReasons } from './emulator-run-files.js';
import { ensureMotoVenv, missingPythonReason, stopMotoServer } from './moto-server.js';

/**
 * Once per test run. The first emulator test file that runs starts moto (see emulator.ts); this stops
 * that server at the end and repeats a skip loudly where everyone reads it.
 *
 * It also begins moto's venv install, which a fresh clone needs (about 45 s from PyPI), at the start
 * of the run: the install then overlaps the tests that run before the emulator's instead of holding
 * every core idle once the first emulator file waits for it (the files share the install under a
 * lock, and a failure here is met again, and reported, by the file's own install).
 */
export default function setup(project: TestProject): () => Promise<void> {
  const runDir = mkdtempSync(join(tmpdir(), 'vigil-emulator-'));
  project.provide('emulatorRunDir', runDir);
  project.provide('testRunnerPid', process.pid);
  const venvInstalled = process.env.AWS_ENDPOINT_URL || missingPythonReason() ? Promise.resolve() : ensureMotoVenv().then(noop, noop);
  return async () => {
    await venvInstalled;
    const server = readMotoServerFile(runDir);
    if (server) await stopMotoServer(server.pid);
    const skipReasons = readSkipReasons(runDir);
    if (skipReasons.length > 0) {
      console.warn(
        [
          '',
          '!'.repeat(78),
          `!! EMULATOR INTEGRATION SUITE SKIPPED: ${skipReasons.join('; ')}`,
          '!! The AWS adapters were NOT tested against an AWS API emulator in this run.',
          '!! Install python3 with venv support, or set AWS_ENDPOINT_URL to a LocalStack endpoint.',
          '!'.repeat(78),
          '',
        ].join('\n'),
      );
    }
    rmSync(runDir, { recursive: true, force: true });
  };
}

declare module 'vitest' {
  export interface ProvidedContext {
    /** A directory private to this test run, where test processes agree on one emulator. */
    emulatorRunDir: string;
    testRunnerPid: number;
  }
}

const noop = (): void => undefined;
