import { join } from 'node:path';
import { describe, expect, it, vi } from 'vitest';
import { errorReply, iso, useFakeVigil } from '../support/fake-vigil.js';

// Real processes.
vi.setConfig({ testTimeout: 60_000 });

// Review finding: a job's child that cleans up on the stop's SIGTERM and exits 0 (a shell's
// `trap '…; exit 0' TERM`, most daemons) was most often seen to exit before the runner's next tick
// saw the stop: its workflow was reported completed and the run exited 0, though the operator had
// interrupted it. The pool runner already takes such an exit as a stop.
describe('vigil run --job: a child that exits 0 on the stop\'s SIGTERM did not complete its workflow', () => {
  const vigil = useFakeVigil();

  it('told to stop (Ctrl-C), the workflow is reported failed whatever the child exits with', async () => {
    // Prepare
    const fake = await vigil.fakeVigil((method, path) => {
      if (path.endsWith('/progress')) return { status: 200, body: { status: 'RUNNING', cancel: false, deadlineAt: iso(Date.now() + 120_000) } };
      if (path.endsWith('/complete')) return { status: 200, body: { jobId: 'job-1', workflowId: 'wf-1', state: 'failed', jobStatus: 'FAILED' } };
      return errorReply(403, 'forbidden', 'client route');
    });
    const pidFile = join(vigil.scratch(), 'exits-0-on-term.pid');
    const runner = vigil.startVigil(['run', '--job', 'job-1', '--workflow', 'wf-1', '--worker', 'w', '--token', 't', '--endpoint', fake.url, '--stuck-threshold', '60', '--grace', '5', '--', 'sh', '-c', `trap 'exit 0' TERM; echo $$ > ${pidFile}; while :; do sleep 0.1; done`]);
    await vigil.childPid(pidFile);
    // Act
    runner.child.kill('SIGINT');
    const result = await runner.done;
    // Assess
    const outcomes = fake.seen.filter((s) => s.path.endsWith('/complete')).map((s) => (s.body as { outcome?: unknown }).outcome);
    expect(outcomes, result.transcript).toEqual(['failed']);
    expect(result.code, result.transcript).toBe(1);
  });
});
