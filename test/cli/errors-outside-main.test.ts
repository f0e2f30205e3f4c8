import { spawn } from 'node:child_process';
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it, vi } from 'vitest';
import { iso, useFakeVigil, type FakeVigil } from '../support/fake-vigil.js';
import { runVigil, vigilCommand } from '../support/vigil-cli.js';

// Real processes.
vi.setConfig({ testTimeout: 60_000 });

/** A job that stays RUNNING: `vigil watch` keeps polling it until it is stopped. */
const runningJob = () => ({
  jobId: 'job-1', status: 'RUNNING', strategy: 'local_authority', fenceToken: 1, deadlineAt: iso(Date.now() + 300_000),
  timeoutTracking: {
    startedAt: iso(Date.now()), lastProgressAt: iso(Date.now()), timeoutSeconds: 300, stuckThresholdSeconds: 120,
    totalExtensionsGranted: 0, effectiveDeadlineAt: iso(Date.now() + 300_000), locallyTimedOut: false, globallyTimedOut: false,
  },
  workflows: [{ workflowId: 'wf-1', workerId: 'w', state: 'running' }],
});

/**
 * Runs `vigil ARGS…` as npx runs it (the package's bin, through tsx) with its stderr pipe closed by
 * the reader at once (`vigil … 2>&1 | head -0`).
 */
function withStderrClosed(args: string[]): Promise<{ code: number | null; stdout: string }> {
  const command = vigilCommand(args, { shipped: true });
  return new Promise((resolve, reject) => {
    const child = spawn(command.file, command.args, { env: { ...process.env, VIGIL_ENDPOINT: '', ...command.env }, stdio: ['ignore', 'pipe', 'pipe'] });
    child.stderr.destroy();
    let stdout = '';
    child.stdout.on('data', (chunk: Buffer) => (stdout += chunk.toString()));
    const killer = setTimeout(() => child.kill('SIGKILL'), 30_000);
    child.once('error', reject);
    child.once('close', (code) => {
      clearTimeout(killer);
      resolve({ code, stdout });
    });
  });
}

/**
 * Scenario: an error escapes the `vigil` command's main, where no command can catch it: a timer's
 * callback throws, or a promise nobody awaits rejects, while `vigil watch` polls. Node ended the
 * process with its own code 1 (the contract's "the job/item failed") and a multi-line stack trace.
 * Likewise a reader that closed stderr (`vigil … 2>&1 | head -0`): the next message failed with
 * EPIPE, and Node exited 1 with a trace, whatever the command's outcome.
 *
 * Correct behaviour: an unexpected error is exit 2 with one line that says the command failed
 * (not the job's outcome); a closed stderr ends quietly with the command's own exit code.
 */
describe('the vigil command on errors outside its main', () => {
  const vigil = useFakeVigil();

  /** A module Node loads before the command (`--import`), throwing from outside it. */
  const preload = (name: string, source: string) => {
    const file = join(vigil.scratch(), name);
    writeFileSync(file, source);
    return { NODE_OPTIONS: `--import=${file}` };
  };

  const watchRunningJob = async (fake: FakeVigil, env: Record<string, string>) =>
    runVigil(['watch', 'job-1', '--interval', '0.1', '--endpoint', fake.url], { env, timeoutMs: 45_000 });

  it.each([
    ['a timer that throws', 'timer.mjs', "setTimeout(() => { throw new Error('thrown by a timer') }, 1500);\n", 'thrown by a timer'],
    ['a promise that rejects unawaited', 'rejection.mjs', "setTimeout(() => void Promise.reject(new Error('rejected unawaited')), 1500);\n", 'rejected unawaited'],
  ])('%s: exit 2 with one line saying the command failed, not 1 and a stack', async (_name, file, source, what) => {
    // Prepare
    const fake = await vigil.fakeVigil(() => ({ status: 200, body: runningJob() }));
    // Act
    const result = await watchRunningJob(fake, preload(file, source));
    // Assess
    expect(result.code, result.transcript).toBe(2);
    const lines = result.stderr.split('\n').filter((line) => line !== '');
    expect(lines, result.transcript).toHaveLength(1);
    expect(lines[0], result.transcript).toMatch(/^vigil: unexpected error/);
    expect(lines[0], result.transcript).toContain('not the outcome of any job or item');
    expect(lines[0], result.transcript).toContain(what);
  });

  it('a reader that closed stderr: the command ends quietly with its own code (4: Vigil unreachable), not 1', async () => {
    // Act: nothing listens at port 1, so the command reports on stderr that Vigil is unreachable
    const result = await withStderrClosed(['status', 'job-1', '--endpoint', 'http://127.0.0.1:1', '--call-timeout', '1']);
    // Assess
    expect(result.code).toBe(4);
  });

  it('a reader that closed stderr on a usage error: exit 2, not 1', async () => {
    // Act: an unknown command, whose usage goes to stderr
    const result = await withStderrClosed(['no-such-command']);
    // Assess
    expect(result.code).toBe(2);
  });
});
