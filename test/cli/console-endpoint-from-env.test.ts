import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { consoleTargets } from '../../shared/cli/commands/console.js';

const scratch = mkdtempSync(join(tmpdir(), 'vigil-review-console-env-'));
afterAll(() => rmSync(scratch, { recursive: true, force: true }));

/**
 * Scenario: `VIGIL_ENDPOINT=https://….execute-api.eu-west-1.amazonaws.com vigil console`, as every
 * other command is run against that Vigil. The console ignored the variable: with no
 * .vigil/endpoints.json it exited 2 ("No Vigil to show: pass --endpoint URL"), and beside a local
 * cloud's file it showed the local cloud instead of the Vigil the variable names.
 *
 * Contract ("The `vigil` command and the worker SDK — v2"): a command talks to `--endpoint URL`
 * (default `$VIGIL_ENDPOINT`, else the first region of `.vigil/endpoints.json`); `vigil console
 * --help` says the same. Correct behaviour: without --endpoint, the console shows the region
 * VIGIL_ENDPOINT names.
 */
describe('vigil console without --endpoint', () => {
  it('shows the Vigil of $VIGIL_ENDPOINT, as --endpoint would', () => {
    const env = { VIGIL_ENDPOINT: 'https://abc.execute-api.eu-west-1.amazonaws.com/' };
    expect(consoleTargets({}, scratch, env)).toEqual({ regions: { 'eu-west-1': 'https://abc.execute-api.eu-west-1.amazonaws.com' } });
    expect(consoleTargets({ 'gate-endpoint': 'https://def.execute-api.us-east-1.amazonaws.com' }, scratch, env)).toEqual({
      gate: 'https://def.execute-api.us-east-1.amazonaws.com',
      regions: { 'eu-west-1': 'https://abc.execute-api.eu-west-1.amazonaws.com' },
    });
  });

  it('--endpoint still wins over $VIGIL_ENDPOINT; with neither and no endpoints file, the message names both', () => {
    expect(consoleTargets({ endpoint: 'http://127.0.0.1:4701' }, scratch, { VIGIL_ENDPOINT: 'http://127.0.0.1:9' })).toEqual({ regions: { region: 'http://127.0.0.1:4701' } });
    expect(() => consoleTargets({}, scratch, {})).toThrow(/--endpoint URL.*VIGIL_ENDPOINT/);
  });
});
