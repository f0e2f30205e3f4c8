import { describe, expect, it } from 'vitest';
import { usage } from '../../shared/local/cli-flags.js';
import { npmStart } from '../support/npm-start.js';

// First-time user: `npm start -- --help` printed the usage under "Unknown option '--help'" and exited 2.
describe('npm start -- --help', () => {
  it.each([['--help'], ['-h']])('npm start -- %s prints the usage and exits 0, refusing nothing and starting nothing', async (flag) => {
    // Act: a port no listener may take, so a start that ignored the flag would fail, not hang
    const run = await npmStart([flag, '--port', '65535'], 60_000);
    // Assess
    expect(run.code, run.output).toBe(0);
    expect(run.output).toContain(usage);
    expect(run.output).not.toMatch(/Unknown option/);
    expect(run.output).not.toMatch(/^gate http/m);
  }, 90_000);
});
