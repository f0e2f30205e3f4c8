import { beforeEach, describe, expect, it } from 'vitest';
import { completeWorkflow } from '../../shared/app/complete-workflow.js';
import { fireJobTimer } from '../../shared/app/fire-job-timer.js';
import { completeWorkflow as decideCompletion } from '../../shared/domain/complete-workflow.js';
import { JobFinishedError } from '../../shared/domain/errors.js';
import { onTimerFired } from '../../shared/domain/timer-fired.js';
import { VersionConflictError } from '../../shared/ports/job-store.js';
import { at, context } from '../support/fixtures.js';
import { InterleavingJobStore } from './support/interleaving-job-store.js';
import { sameTable, submit, tokenOf, useTestManager } from './support/test-manager.js';

const body = { jobId: 'job-1', timeoutSeconds: 60, workflows: [{ workflowId: 'wf-1', workerId: 'worker-a' }] };

describe('exactly one terminal state when completion and timeout race (dynalite)', () => {
  let store: InterleavingJobStore;
  const m = useTestManager({ store: (doc, table) => (store = new InterleavingJobStore(doc, table)) });
  let token: string;
  beforeEach(async () => {
    token = tokenOf(await submit(m, body), 'wf-1');
    m.clock.set(at(60));
  });

  const complete = (deps = m.deps) =>
    completeWorkflow(deps, { jobId: 'job-1', workflowId: 'wf-1', workerId: 'worker-a', outcome: 'completed', token });

  it('two writes decided from the same loaded version: the second conditional write loses', async () => {
    // Prepare
    const loaded = await m.getJob('job-1');
    const workflow = await m.jobs.getWorkflow('job-1', 'wf-1');
    if (!workflow) throw new Error('workflow expected');
    const completed = decideCompletion(loaded, workflow, 'completed', context(at(60))).state;
    const timedOut = onTimerFired(loaded, { fenceToken: 1 }, context(at(60))).state;
    // Act
    await m.jobs.saveJob(completed, loaded.version);
    const second = m.jobs.saveJob(timedOut, loaded.version);
    // Assess
    await expect(second).rejects.toThrow(VersionConflictError);
    expect((await m.getJob('job-1')).status).toBe('COMPLETED');
  });

  it('the timeout decided first but the completion written first: the job stays COMPLETED and no JobTimedOut is published', async () => {
    // Prepare
    const timer = m.timers.expectArmed('job-1');
    store.beforeNextSave(() => complete(sameTable(m)));
    // Act
    await fireJobTimer(m.deps, timer);
    // Assess
    const job = await m.getJob('job-1');
    expect(job.status).toBe('COMPLETED');
    expect(job.tracking.timeoutReason).toBeUndefined();
    expect(m.bus.ofType('JobTimedOut')).toEqual([]);
  });

  it('the completion decided first but the timeout written first: the job stays TIMED_OUT and the worker is told job_finished', async () => {
    // Prepare
    const timer = m.timers.expectArmed('job-1');
    store.beforeNextSave(() => fireJobTimer(sameTable(m), timer));
    // Act
    const completion = complete();
    // Assess
    await expect(completion).rejects.toThrow(JobFinishedError);
    const job = await m.getJob('job-1');
    expect(job.status).toBe('TIMED_OUT');
    expect(m.bus.ofType('JobTimedOut')).toHaveLength(1);
  });
});
