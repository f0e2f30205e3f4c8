import { spawn } from 'node:child_process';
import { existsSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { Writable } from 'node:stream';
import { afterAll, describe, expect, it } from 'vitest';
import { START_WHEN_GUARDED } from '../../shared/runner/process-group.js';

/**
 * A runner SIGKILLed after it started a child but before that child's group had a guard left an
 * orphan (seen in CI under load: the child ran on, no guard). The child now waits for the runner's
 * `go`, sent once the guard runs: a runner that dies first never starts the command.
 */
describe('a group command starts only once its guard runs', () => {
  const scratch = mkdtempSync(join(tmpdir(), 'vigil-start-gate-'));
  afterAll(() => rmSync(scratch, { recursive: true, force: true }));

  const startGated = (marker: string) => {
    const child = spawn('sh', ['-c', START_WHEN_GUARDED, 'vigil-group', 'sh', '-c', `echo "$@" > ${marker}`, 'cmd', 'a b', 'c'], { stdio: ['ignore', 'ignore', 'ignore', 'pipe'] });
    const exited = new Promise<number | null>((resolve) => child.once('exit', resolve));
    return { gate: child.stdio[3] as Writable, exited };
  };

  it('the gate closed without `go` (the runner died): the command never runs', async () => {
    const marker = join(scratch, 'never');
    const { gate, exited } = startGated(marker);
    gate.destroy();
    expect(await exited).toBe(0);
    expect(existsSync(marker)).toBe(false);
  });

  it('`go`: the command runs with its arguments as given', async () => {
    const marker = join(scratch, 'ran');
    const { gate, exited } = startGated(marker);
    gate.end('go\n');
    expect(await exited).toBe(0);
    expect(readFileSync(marker, 'utf8')).toBe('a b c\n');
  });
});
