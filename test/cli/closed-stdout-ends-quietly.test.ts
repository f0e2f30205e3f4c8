import { describe, expect, it, vi } from 'vitest';
import { iso, useFakeVigil, type FakeVigil } from '../support/fake-vigil.js';

// A real `vigil` process (tsx compiles on start).
vi.setConfig({ testTimeout: 60_000 });

/** A RUNNING job whose progress moves: every poll prints a frame, human or JSON. */
const runningJob = (progress: number) => ({
  jobId: 'job-1', status: 'RUNNING', strategy: 'local_authority', fenceToken: 1, deadlineAt: iso(Date.now() + 300_000),
  timeoutTracking: {
    startedAt: iso(Date.now()), lastProgressAt: iso(Date.now()), timeoutSeconds: 300, stuckThresholdSeconds: 120,
    totalExtensionsGranted: 0, effectiveDeadlineAt: iso(Date.now() + 300_000), locallyTimedOut: false, globallyTimedOut: false,
  },
  workflows: [{ workflowId: 'wf-1', workerId: 'w', state: 'running', progress }],
});

/**
 * Proves that a reader closing the output early (`vigil watch JOB | head -1`) ends the command
 * quietly, as it ends a standard Unix tool. The next write failed with EPIPE, which escaped as
 * Node's stack trace and exit 1, the contract's "the job failed", for a job still RUNNING.
 *
 * Correct behaviour: no trace; watch ends by the job's state as it last saw it (RUNNING: 0).
 */
describe('vigil watch and status whose reader closes the pipe', () => {
  const vigil = useFakeVigil();

  const watchUntilReaderCloses = async (fake: FakeVigil, args: string[]) => {
    const watching = vigil.startVigil(['watch', 'job-1', '--interval', '0.05', '--endpoint', fake.url, ...args]);
    // The reader takes the first line, then goes away, as `head -1` does.
    watching.child.stdout?.once('data', () => watching.child.stdout?.destroy());
    return watching.done;
  };

  it('exits 0 (the job is RUNNING) without a stack trace', async () => {
    // Prepare: a job that stays RUNNING
    const fake = await vigil.fakeVigil((_method, _path, _body, seen) => ({ status: 200, body: runningJob((seen.length % 100) / 100) }));
    // Act
    const result = await watchUntilReaderCloses(fake, []);
    // Assess
    expect(result.code, result.transcript).toBe(0);
    expect(result.transcript).not.toMatch(/EPIPE|Error|at /);
  });

  it('does so with --json too', async () => {
    // Prepare: a job that stays RUNNING
    const fake = await vigil.fakeVigil((_method, _path, _body, seen) => ({ status: 200, body: runningJob((seen.length % 100) / 100) }));
    // Act
    const result = await watchUntilReaderCloses(fake, ['--json']);
    // Assess
    expect(result.code, result.transcript).toBe(0);
    expect(result.transcript).not.toMatch(/EPIPE|Error|at /);
  });

  it('vigil status whose reader is already gone exits by the job, quietly', async () => {
    // Prepare: a COMPLETED job
    const fake = await vigil.fakeVigil(() => ({ status: 200, body: { ...runningJob(1), status: 'COMPLETED' } }));
    // Act: the reader closes before the command prints (`vigil status job-1 | true`)
    const status = vigil.startVigil(['status', 'job-1', '--endpoint', fake.url]);
    status.child.stdout?.destroy();
    const result = await status.done;
    // Assess
    expect(result.code, result.transcript).toBe(0);
    expect(result.transcript).not.toMatch(/EPIPE|Error|at /);
  });
});
