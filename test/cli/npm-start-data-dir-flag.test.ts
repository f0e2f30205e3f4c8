import { spawn } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, describe, expect, it } from 'vitest';
import { parseFlags } from '../../shared/local/cli-flags.js';

const REPO_ROOT = fileURLToPath(new URL('../..', import.meta.url));
const scratch = mkdtempSync(join(tmpdir(), 'vigil-review-datadir-'));
afterAll(() => rmSync(scratch, { recursive: true, force: true }));

/** `npm start -- ARGS` (`tsx shared/local/main.ts`) to its end; killed after `ms`. */
function npmStart(args: string[], ms: number): Promise<{ code: number | null; output: string }> {
  return new Promise((resolve) => {
    const child = spawn(process.execPath, ['--import', 'tsx', 'shared/local/main.ts', ...args], { cwd: REPO_ROOT, stdio: ['ignore', 'pipe', 'pipe'] });
    let output = '';
    child.stdout.on('data', (chunk: Buffer) => (output += chunk.toString()));
    child.stderr.on('data', (chunk: Buffer) => (output += chunk.toString()));
    const killer = setTimeout(() => child.kill('SIGKILL'), ms);
    child.once('exit', (code) => (clearTimeout(killer), resolve({ code, output })));
  });
}

/**
 * Scenario: `npm start -- --data-dir DIR` with a DIR that cannot be a directory (an existing file, a
 * typo pointing at a log) or with an empty value (`--data-dir "$UNSET_VAR"`). The first dies with an
 * uncaught `EEXIST … mkdir` Node stack trace and exit 1; the second says "Too small: expected string to
 * have >=1 characters", naming no flag.
 *
 * Contract ("Starting the local cloud", `--data-dir DIR`), and the review brief: a bad flag gets a clear
 * error (what is wrong and how to fix it) and a non-zero exit; the other bad flags of `npm start` exit 2
 * naming the flag (test/integration/local-cloud-guards.test.ts). Correct behaviour: both are refused as
 * bad flags — exit 2, a message naming `--data-dir` and what it needs, no stack trace; the file untouched.
 */
describe('npm start --data-dir that cannot be used', () => {
  it('a --data-dir naming an existing file is refused as a bad flag: exit 2 naming --data-dir, no stack trace, the file untouched', async () => {
    // Prepare
    const file = join(scratch, 'not-a-dir.log');
    writeFileSync(file, 'keep me\n');
    // Act
    const run = await npmStart(['--data-dir', file, '--port', '0', '--regions', 'us-east-1'], 60_000);
    // Assess
    expect(run.output, 'the message must name the flag').toMatch(/--data-dir/);
    expect(run.output, 'a bad flag is not a crash').not.toMatch(/\n\s+at .*\(.*:\d+:\d+\)/);
    expect(run.code, run.output).toBe(2);
    expect(readFileSync(file, 'utf8')).toBe('keep me\n');
  }, 90_000);

  it('an empty --data-dir is refused with a message naming --data-dir (not only in the usage lines after it)', () => {
    let message = '';
    try {
      parseFlags(['--data-dir', '']);
    } catch (error) {
      message = (error as Error).message;
    }
    const [reason] = message.split('\nUsage:');
    expect(message, 'an empty --data-dir must be refused').not.toBe('');
    expect(reason, message).toMatch(/--data-dir/);
  });
});
