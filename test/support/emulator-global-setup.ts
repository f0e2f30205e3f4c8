import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { TestProject } from 'vitest/node';
import { readMotoServerFile, readSkipReasons } from './emulator-run-files.js';
import { stopMotoServer } from './moto-server.js';

/**
 * Once per test run. Starts nothing by itself: the first emulator test file that runs starts moto
 * (see emulator.ts), so a run without emulator tests costs nothing. Stops that server at the end
 * and repeats a skip loudly where everyone reads it.
 */
export default function setup(project: TestProject): () => Promise<void> {
  const runDir = mkdtempSync(join(tmpdir(), 'vigil-emulator-'));
  project.provide('emulatorRunDir', runDir);
  project.provide('testRunnerPid', process.pid);
  return async () => {
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
