import { DeleteCommand } from '@aws-sdk/lib-dynamodb';
import { describe, expect, it } from 'vitest';
import { submitJob } from '../../shared/app/submit-job.js';
import { SubmissionConflictError } from '../../shared/domain/errors.js';
import { useTestManager } from './support/test-manager.js';

const body = {
  jobId: 'job-1',
  timeoutSeconds: 60,
  workflows: [
    { workflowId: 'wf-1', workerId: 'worker-a' },
    { workflowId: 'wf-2', workerId: 'worker-b' },
  ],
};

describe('submit is idempotent on jobId (dynalite)', () => {
  const m = useTestManager();

  it('a first submission stores the job RUNNING at fence 1 with its workflows and arms its timer', async () => {
    // Prepare
    const input = body;
    // Act
    const result = await submitJob(m.deps, input);
    // Assess
    expect(result.created).toBe(true);
    expect(result.view).toMatchObject({ jobId: 'job-1', status: 'RUNNING', strategy: 'local_authority', fenceToken: 1 });
    const stored = await m.jobs.getJobWithWorkflows('job-1');
    expect(stored?.job.status).toBe('RUNNING');
    expect(stored?.workflows.map((w) => [w.workflowId, w.workerId])).toEqual([
      ['wf-1', 'worker-a'],
      ['wf-2', 'worker-b'],
    ]);
    expect(m.timers.armed('job-1')).toHaveLength(1);
  });

  it('the same body again answers the stored job with created:false, the same tokens, and changes nothing', async () => {
    // Prepare
    const first = await submitJob(m.deps, body);
    const before = await m.snapshot();
    m.clock.set(m.clock.now() + 5_000);
    // Act
    const second = await submitJob(m.deps, { ...body, workflows: body.workflows.map((w) => ({ ...w })) });
    // Assess
    expect(second.created).toBe(false);
    expect(second.view).toEqual(first.view);
    expect(await m.snapshot()).toEqual(before);
    expect(m.timers.armed('job-1')).toHaveLength(1);
  });

  it('the same jobId with another body is a SubmissionConflictError and leaves the stored job and workflows unchanged', async () => {
    // Prepare
    await submitJob(m.deps, body);
    const before = await m.snapshot();
    // Act
    const conflicting = submitJob(m.deps, { ...body, timeoutSeconds: 90, workflows: [{ workflowId: 'wf-9', workerId: 'worker-z' }] });
    // Assess
    await expect(conflicting).rejects.toThrow(SubmissionConflictError);
    expect(await m.snapshot()).toEqual(before);
  });

  it('a different stuck threshold alone is a different body', async () => {
    // Prepare
    await submitJob(m.deps, body);
    // Act
    const conflicting = submitJob(m.deps, { ...body, stuckThresholdSeconds: 30 });
    // Assess
    await expect(conflicting).rejects.toThrow(SubmissionConflictError);
  });

  it('two submissions with different bodies at once: exactly one wins and its workflows are not overwritten', async () => {
    // Prepare
    const other = { ...body, workflows: [{ workflowId: 'wf-1', workerId: 'worker-z' }] };
    // Act
    const outcomes = await Promise.allSettled([submitJob(m.deps, body), submitJob(m.deps, other)]);
    // Assess
    const winners = outcomes.filter((o) => o.status === 'fulfilled');
    expect(winners).toHaveLength(1);
    const rejected = outcomes.find((o) => o.status === 'rejected');
    expect(rejected?.status === 'rejected' && rejected.reason).toBeInstanceOf(SubmissionConflictError);
    const stored = await m.jobs.getJobWithWorkflows('job-1');
    const winnerBody = outcomes[0]?.status === 'fulfilled' ? body : other;
    expect(stored?.workflows.map((w) => [w.workflowId, w.workerId])).toEqual(
      winnerBody.workflows.map((w) => [w.workflowId, w.workerId]),
    );
  });

  it('resubmitting after a submit that stopped before its workflows were written adds the missing ones', async () => {
    // Prepare: the job item is written, the workflows are not (a crash in between)
    const started = await submitJob(m.deps, body);
    const jobOnly = await m.jobs.getJobWithWorkflows('job-1');
    await m.dynamo.doc.send(new DeleteCommand({ TableName: m.tableName, Key: { pk: 'JOB#job-1', sk: 'WF#wf-2' } }));
    // Act
    const again = await submitJob(m.deps, body);
    // Assess
    expect(again.view).toEqual(started.view);
    const stored = await m.jobs.getJobWithWorkflows('job-1');
    expect(stored?.workflows).toEqual(jobOnly?.workflows);
  });
});
