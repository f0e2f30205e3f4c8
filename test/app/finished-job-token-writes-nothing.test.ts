import { describe, expect, it } from 'vitest';
import { completeWorkflow } from '../../shared/app/complete-workflow.js';
import { reportProgress } from '../../shared/app/report-progress.js';
import { reportWorkerFailure } from '../../shared/app/report-worker-failure.js';
import { WorkflowFinishedError } from '../../shared/domain/errors.js';
import { submit, tokenOf, useTestManager } from './support/test-manager.js';

// Review (security): a workflow token whose workflow reported its outcome was refused while its job
// ran (workflow_finished, nothing written), but once the whole job had ended the same token was
// accepted again as the worker's healthcheck: it rewrote the worker item and cleared a failure the
// client had reported. A finished job's token now writes nothing at all and still answers `cancel`.
describe("a finished job's token does not change its worker's health (dynalite)", () => {
  const m = useTestManager();

  it('worker-a reported failed; progress with the token of its COMPLETED job-1 answers cancel and leaves it failed, writing nothing', async () => {
    // Prepare: job-1 (worker-a alone) completes; job-2 keeps worker-a busy; the client reports worker-a failed.
    const one = await submit(m, { jobId: 'job-1', timeoutSeconds: 600, workflows: [{ workflowId: 'wf-1', workerId: 'worker-a' }] });
    await submit(m, { jobId: 'job-2', timeoutSeconds: 600, workflows: [{ workflowId: 'wf-2', workerId: 'worker-a' }] });
    const oldToken = tokenOf(one, 'wf-1');
    await completeWorkflow(m.deps, { jobId: 'job-1', workflowId: 'wf-1', workerId: 'worker-a', outcome: 'completed', token: oldToken });
    expect((await m.getJob('job-1')).status).toBe('COMPLETED');
    m.clock.set(m.clock.now() + 1_000);
    await reportWorkerFailure(m.deps, 'worker-a');
    const failed = await m.deps.jobs.getWorker('worker-a');
    expect(failed?.failedAt).toBeDefined();
    m.clock.set(m.clock.now() + 1_000);
    const before = await m.snapshot();
    // Act: the finished job's token is replayed.
    const answer = await reportProgress(m.deps, { jobId: 'job-1', workflowId: 'wf-1', workerId: 'worker-a', progress: 0.5, token: oldToken });
    // Assess: the worker is told to stop, and nothing was written (worker-a stays failed).
    expect(answer).toMatchObject({ status: 'COMPLETED', cancel: true });
    expect(await m.deps.jobs.getWorker('worker-a')).toEqual(failed);
    expect(await m.snapshot()).toEqual(before);
  });

  it('as a finished workflow on a running job: its token is refused and writes nothing', async () => {
    // Prepare: wf-a of job-3 reported its outcome while wf-b still runs; worker-a is reported failed.
    const job = await submit(m, { jobId: 'job-3', timeoutSeconds: 600, workflows: [{ workflowId: 'wf-a', workerId: 'worker-a' }, { workflowId: 'wf-b', workerId: 'worker-b' }] });
    await completeWorkflow(m.deps, { jobId: 'job-3', workflowId: 'wf-a', workerId: 'worker-a', outcome: 'completed', token: tokenOf(job, 'wf-a') });
    await reportWorkerFailure(m.deps, 'worker-a');
    const failed = await m.deps.jobs.getWorker('worker-a');
    m.clock.set(m.clock.now() + 1_000);
    // Act
    const refused = reportProgress(m.deps, { jobId: 'job-3', workflowId: 'wf-a', workerId: 'worker-a', progress: 0.5, token: tokenOf(job, 'wf-a') });
    // Assess
    await expect(refused).rejects.toBeInstanceOf(WorkflowFinishedError);
    expect(await m.deps.jobs.getWorker('worker-a')).toEqual(failed);
  });
});
