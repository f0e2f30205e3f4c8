import { beforeEach, describe, expect, it } from 'vitest';
import { completeWorkflow } from '../../shared/app/complete-workflow.js';
import { fireJobTimer } from '../../shared/app/fire-job-timer.js';
import { requestExtension } from '../../shared/app/request-extension.js';
import { effectiveDeadline } from '../../shared/domain/deadlines.js';
import { at } from '../support/fixtures.js';
import { extensionsOf, submit, tokenOf, useTestManager } from './support/test-manager.js';

describe('AD-26 extensions through the use case (dynalite)', () => {
  const m = useTestManager();
  let tokenA: string;
  beforeEach(async () => {
    // worker-a is active in job-run; it finished its workflow in job-done (COMPLETED) and in job-half
    // (still RUNNING on worker-b's workflow).
    const run = await submit(m, { jobId: 'job-run', timeoutSeconds: 60, workflows: [{ workflowId: 'wf-1', workerId: 'worker-a' }] });
    const done = await submit(m, { jobId: 'job-done', timeoutSeconds: 60, workflows: [{ workflowId: 'wf-1', workerId: 'worker-a' }] });
    const half = await submit(m, {
      jobId: 'job-half',
      timeoutSeconds: 60,
      workflows: [
        { workflowId: 'wf-1', workerId: 'worker-a' },
        { workflowId: 'wf-2', workerId: 'worker-b' },
      ],
    });
    const complete = (jobId: string, token: string) =>
      completeWorkflow(m.deps, { jobId, workflowId: 'wf-1', workerId: 'worker-a', outcome: 'completed', token });
    await complete('job-done', tokenOf(done, 'wf-1'));
    await complete('job-half', tokenOf(half, 'wf-1'));
    tokenA = tokenOf(run, 'wf-1');
  });

  const ask = (currentProgress: number) => requestExtension(m.deps, { workerId: 'worker-a', token: tokenA, currentProgress });

  it('a granted extension moves the deadline of every RUNNING job where the worker has an active workflow, and only those', async () => {
    // Prepare
    const doneBefore = await m.getJob('job-done');
    const halfBefore = await m.getJob('job-half');
    // Act
    const answer = await ask(0.3);
    // Assess
    expect(answer).toMatchObject({ granted: true, extensionSeconds: 30, remainingExtensions: 4 });
    const run = await m.getJob('job-run');
    expect(await extensionsOf(m, 'job-run')).toEqual(new Map([['worker-a', 30]]));
    expect(effectiveDeadline(run.tracking)).toBe(at(90));
    expect(await m.getJob('job-done')).toEqual(doneBefore);
    expect(await m.getJob('job-half')).toEqual(halfBefore);
    expect(m.telemetry.count('ExtensionGranted')).toBe(1);
  });

  it('a second request without progress is denied with a denialReason saying so, and no deadline moves', async () => {
    // Prepare
    await ask(0.3);
    const before = await m.getJob('job-run');
    // Act
    const answer = await ask(0.3);
    // Assess
    expect(answer).toMatchObject({
      granted: false,
      extensionSeconds: 0,
      remainingExtensions: 4,
      denialReason: 'No progress since last extension (was 0.3, now 0.3).',
    });
    expect(await m.getJob('job-run')).toEqual(before);
    expect(m.telemetry.count('ExtensionDenied')).toBe(1);
  });

  it('the next request with progress gets half the previous grant, added to the job', async () => {
    // Prepare
    await ask(0.3);
    // Act
    const answer = await ask(0.6);
    // Assess
    expect(answer).toMatchObject({ granted: true, extensionSeconds: 15, remainingExtensions: 3 });
    expect((await m.getJob('job-run')).tracking.totalExtensionsGranted).toBe(45);
  });

  it('the extension keeps the job alive past its base timeout: the 60 s timer re-arms for 90 s', async () => {
    // Prepare
    await ask(0.3);
    const timer = m.timers.expectArmed('job-run');
    m.clock.set(at(60));
    // Act
    await fireJobTimer(m.deps, timer);
    // Assess
    expect(timer.dueAt).toBe(at(60));
    expect((await m.getJob('job-run')).status).toBe('RUNNING');
    expect(m.timers.expectArmed('job-run').dueAt).toBe(at(90));
  });

  it('a worker with two active workflows in one job extends that job once, not once per workflow', async () => {
    // Prepare
    const both = await submit(m, {
      jobId: 'job-two',
      timeoutSeconds: 60,
      workflows: [
        { workflowId: 'wf-1', workerId: 'worker-c' },
        { workflowId: 'wf-2', workerId: 'worker-c' },
      ],
    });
    // Act
    const answer = await requestExtension(m.deps, { workerId: 'worker-c', token: tokenOf(both, 'wf-2'), currentProgress: 0.1 });
    // Assess
    expect(answer).toMatchObject({ granted: true, extensionSeconds: 30 });
    expect(await extensionsOf(m, 'job-two')).toEqual(new Map([['worker-c', 30]]));
  });
});
