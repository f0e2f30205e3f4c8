import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { parseFlags } from '../../shared/local/cli-flags.js';
import { npmStart } from '../support/npm-start.js';

const scratch = mkdtempSync(join(tmpdir(), 'vigil-review-datadir-'));
afterAll(() => rmSync(scratch, { recursive: true, force: true }));

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
describe('npm start -- --data-dir that cannot be used', () => {
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
