import { existsSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it, vi } from 'vitest';
import { errorReply, iso, useFakeVigil } from '../support/fake-vigil.js';
import { runVigil } from '../support/vigil-cli.js';

// Real processes.
vi.setConfig({ testTimeout: 60_000 });

/**
 * Scenario: `vigil run --job J --workflow WF --worker W --token T -- CMD` for a job that has already
 * ended (cancelled, or timed out while the worker was queued). The first progress report — which the
 * SDK makes before returning the handle — answers `"cancel": true`. The runner spawns CMD anyway and
 * only then sends it SIGTERM (its log says "Vigil said cancel; SIGTERM to group …"): the work of a
 * finished job is started, and a child that handles SIGTERM to finish its unit of work runs on for the
 * whole grace period (default 30 s) with side effects.
 *
 * Contract ("Region manager API"): once the job is no longer RUNNING the progress answer says
 * `"cancel": true` — "this is how a worker learns to stop"; `vigil run --job` stops on `cancel`.
 * Correct behaviour: a workflow Vigil already said to stop is never started: no child, exit 3.
 * (The spawn is detected through the runner's own log line and a marker file, because a spawned child
 * may or may not get to write the marker before its SIGTERM arrives.)
 */
describe('vigil run --job for a job that has already ended', () => {
  const vigil = useFakeVigil();

  it('starts no child when the first progress answer already says cancel, and exits 3', async () => {
    // Prepare: the job was cancelled before the worker started
    const fake = await vigil.fakeVigil((method, path) => {
      if (method === 'GET') return errorReply(403, 'forbidden', 'client route');
      if (path.endsWith('/progress')) return { status: 200, body: { status: 'CANCELLED', cancel: true, deadlineAt: iso(Date.now() + 60_000) } };
      if (path.endsWith('/complete')) return errorReply(409, 'job_finished', "Job 'job-1' is CANCELLED; it takes no more outcomes.");
      return errorReply(404, 'route_not_found', 'no');
    });
    const marker = join(vigil.scratch(), 'started-for-cancelled-job');
    // Act
    const result = await runVigil(['run', '--job', 'job-1', '--workflow', 'wf-1', '--worker', 'w', '--token', 't', '--endpoint', fake.url, '--grace', '1', '--', 'sh', '-c', `touch ${marker}; sleep 30`], { timeoutMs: 45_000 });
    // Assess
    expect(result.code, result.transcript).toBe(3);
    expect(result.stderr, `a child was spawned for a job Vigil had already said to stop\n${result.transcript}`).not.toMatch(/SIGTERM to group \d+/);
    expect(existsSync(marker), `the child ran for a job Vigil had already said to stop\n${result.transcript}`).toBe(false);
  });
});
