import { describe, expect, it, vi } from 'vitest';
import { errorReply, iso, useFakeVigil } from '../support/fake-vigil.js';
import { runVigil } from '../support/vigil-cli.js';

// Real processes and a real outage window.
vi.setConfig({ testTimeout: 60_000 });

/**
 * Scenario: `vigil run --job J --workflow WF --worker W --token T -- CMD`; CMD succeeds, and Vigil has a
 * brief outage (8 s of 503) just as the runner reports the outcome. The SDK's own retries (4, ≤ ~3 s)
 * give up, the run exits 4, and the workflow's `completed` never reaches Vigil: the job, whose work is
 * done, later ends TIMED_OUT (stuck or deadline) instead of COMPLETED.
 *
 * Contract ("The `vigil` command and the worker SDK — v2"): `vigil run --job …` is "the same" as the
 * pool runner for a job's workflow; README "The agent runner": an outcome "is sent again through an
 * outage of Vigil until the attempt's deadline … so a brief outage loses no result". A repeated
 * `complete` with the same outcome is a no-op on the server (shared/domain/complete-workflow.ts), so
 * resending is safe. Correct behaviour: the outcome is sent again until the job's deadline; it arrives
 * after the outage and the run exits 0.
 */
describe('vigil run --job: a finished child outlasts a brief outage of Vigil', () => {
  const vigil = useFakeVigil();

  it("the workflow's outcome is sent again until Vigil answers, and the run exits 0", async () => {
    // Prepare: the job's deadline is a minute away; complete answers 503 for 8 s after its first try
    let firstComplete = 0;
    const fake = await vigil.fakeVigil((method, path) => {
      if (method === 'GET') return errorReply(403, 'forbidden', 'client route');
      if (path.endsWith('/progress')) return { status: 200, body: { status: 'RUNNING', cancel: false, deadlineAt: iso(Date.now() + 60_000) } };
      if (path.endsWith('/complete')) {
        if (firstComplete === 0) firstComplete = Date.now();
        if (Date.now() - firstComplete < 8_000) return errorReply(503, 'upstream_unavailable', 'down');
        return { status: 200, body: { jobId: 'job-1', workflowId: 'wf-1', state: 'completed', jobStatus: 'COMPLETED' } };
      }
      return errorReply(404, 'route_not_found', 'no');
    });
    // Act
    const result = await runVigil(['run', '--job', 'job-1', '--workflow', 'wf-1', '--worker', 'w', '--token', 't', '--endpoint', fake.url, '--stuck-threshold', '4', '--', 'sh', '-c', 'sleep 0.5'], { timeoutMs: 50_000 });
    // Assess
    const calls = fake.seen.map((s) => `${s.method} ${s.path} ${JSON.stringify(s.body)}`).join('\n');
    const delivered = fake.seen.filter((s) => s.path.endsWith('/complete') && s.at - firstComplete >= 8_000);
    expect(delivered.length, `${result.transcript}\ncalls:\n${calls}`).toBe(1);
    expect(result.code, result.transcript).toBe(0);
  });
});
