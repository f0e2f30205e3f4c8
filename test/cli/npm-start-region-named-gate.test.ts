import { existsSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { parseFlags } from '../../shared/local/cli-flags.js';
import { npmStart } from '../support/npm-start.js';

const scratch = mkdtempSync(join(tmpdir(), 'vigil-review-region-gate-'));
afterAll(() => rmSync(scratch, { recursive: true, force: true }));

/**
 * Scenario: `npm start -- --regions us-east-1,gate`. The region takes the gate's own name, so its
 * DynamoDB data, its key and its events share the gate's: the local cloud dies with a bare
 * `connect ECONNREFUSED 127.0.0.1:…` and exit 1, which says neither what is wrong nor how to fix it.
 *
 * Contract ("Starting the local cloud", `--regions a,b,c`), and the review brief: a bad flag gets a
 * message that says what is wrong and how to fix it. Correct behaviour: refused as a bad flag — exit 2,
 * a message naming --regions and the reserved name, nothing written to the data dir.
 */
describe('npm start -- --regions naming a region "gate"', () => {
  it('is refused as a bad flag: exit 2 naming --regions and gate, nothing written to the data dir', async () => {
    // Prepare
    const dataDir = join(scratch, 'data');
    // Act
    const run = await npmStart(['--regions', 'us-east-1,gate', '--port', '0', '--data-dir', dataDir], 60_000);
    // Assess
    expect(run.output, run.output).not.toMatch(/ECONNREFUSED/);
    expect(run.output, run.output).toMatch(/--regions/);
    expect(run.output, run.output).toMatch(/'gate'/);
    expect(run.code, run.output).toBe(2);
    expect(existsSync(join(dataDir, 'dynamodb')), 'nothing of the run was stored').toBe(false);
  }, 90_000);

  it('parseFlags refuses it with a message naming --regions before the usage lines', () => {
    let message = '';
    try {
      parseFlags(['--regions', 'gate']);
    } catch (error) {
      message = (error as Error).message;
    }
    const [reason] = message.split('\nUsage:');
    expect(reason, message).toMatch(/--regions/);
    expect(reason, message).toMatch(/'gate'/);
  });
});
