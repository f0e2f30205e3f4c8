import { describe, expect, it } from 'vitest';
import { getJob } from '../../shared/app/get-job.js';
import { reportProgress } from '../../shared/app/report-progress.js';
import { reportWorkerFailure } from '../../shared/app/report-worker-failure.js';
import { requestExtension } from '../../shared/app/request-extension.js';
import { at } from '../support/fixtures.js';
import { InterleavingJobStore } from './support/interleaving-job-store.js';
import { sameTable, submit, tokenOf, useTestManager } from './support/test-manager.js';

const body = { jobId: 'job-1', timeoutSeconds: 300, stuckThresholdSeconds: 3_600, workflows: [{ workflowId: 'wf-1', workerId: 'worker-a' }] };

describe('extension interleavings (dynalite)', () => {
  let store: InterleavingJobStore;
  const m = useTestManager({ store: (doc, table) => (store = new InterleavingJobStore(doc, table)) });

  async function start() {
    const token = tokenOf(await submit(m, body), 'wf-1');
    const ask = (currentProgress: number, deps = m.deps) => requestExtension(deps, { workerId: 'worker-a', token, currentProgress });
    return { token, ask };
  }

  /** A request at `racingProgress` whose budget write lets another at `competingProgress` run first. */
  async function race(competingProgress: number, racingProgress: number) {
    const { ask } = await start();
    let competing: Awaited<ReturnType<typeof ask>> | undefined;
    store.beforeNextWorkerSave(async () => (competing = await ask(competingProgress, sameTable(m))));
    const racing = await ask(racingProgress);
    return { competing, racing };
  }

  it('two requests of one worker at once: the budget and the job agree, each grant counted once', async () => {
    // Act
    const { competing, racing } = await race(0.2, 0.3);
    // Assess: the competitor took the first grant; the racer, retried on its lost write, the second
    expect(competing).toMatchObject({ granted: true, extensionSeconds: 30 });
    expect(racing).toMatchObject({ granted: true, extensionSeconds: 15, remainingExtensions: 3 });
    expect((await m.jobs.getWorker('worker-a'))?.budget).toMatchObject({ count: 2, totalSeconds: 45 });
    expect((await m.getJob('job-1')).tracking.totalExtensionsGranted).toBe(45);
  });

  it('two requests of one worker at once with the same progress: one grant, one denial', async () => {
    // Act
    const { competing, racing } = await race(0.3, 0.3);
    // Assess
    expect(competing).toMatchObject({ granted: true, extensionSeconds: 30 });
    expect(racing).toMatchObject({ granted: false, denialReason: 'No progress since last extension (was 0.3, now 0.3).' });
    expect((await m.getJob('job-1')).tracking.totalExtensionsGranted).toBe(30);
  });

  it('a failure reported after the grant was decided but before it reached the job: the job keeps nothing of it', async () => {
    // Prepare
    const { ask } = await start();
    store.beforeNextSave(() => reportWorkerFailure(sameTable(m), 'worker-a'));
    // Act
    const answer = await ask(0.3);
    // Assess: the failed worker is denied, and the grant its request had applied is retired
    expect(answer).toMatchObject({ granted: false });
    const job = await m.getJob('job-1');
    expect(job.tracking.totalExtensionsGranted).toBe(0);
    expect(job.status).toBe('RUNNING');
  });

  it('a failure reported after the grant reached the job but before the budget write: the job keeps nothing of it', async () => {
    // Prepare
    const { ask } = await start();
    store.beforeNextWorkerSave(() => reportWorkerFailure(sameTable(m), 'worker-a'));
    // Act
    const answer = await ask(0.3);
    // Assess
    expect(answer).toMatchObject({ granted: false });
    expect((await m.getJob('job-1')).tracking.totalExtensionsGranted).toBe(0);
  });

  it('an extension\'s budget write never turns back a newer healthcheck', async () => {
    // Prepare: the worker exists; its healthcheck at 20 s lands between the request's read and write
    const { token, ask } = await start();
    await ask(0.1);
    store.beforeNextWorkerSave(async () => {
      m.clock.set(at(20));
      await reportProgress(sameTable(m), { jobId: 'job-1', workflowId: 'wf-1', workerId: 'worker-a', token });
    });
    // Act
    m.clock.set(at(10));
    await ask(0.2);
    // Assess
    expect((await m.jobs.getWorker('worker-a'))?.lastHealthAt).toBe(at(20));
  });
});

describe('estimatedCompletion and activeWorkflowCount are recorded and shown on the job (dynalite)', () => {
  const m = useTestManager();

  it('GET /jobs/{jobId} shows each extended worker\'s grant with what it said when it asked', async () => {
    // Prepare
    const token = tokenOf(await submit(m, body), 'wf-1');
    m.clock.set(at(5));
    // Act
    await requestExtension(m.deps, {
      workerId: 'worker-a',
      token,
      currentProgress: 0.4,
      estimatedCompletion: '2026-03-01T12:10:00.000Z',
      activeWorkflowCount: 1,
    });
    const view = await getJob(m.deps, 'job-1');
    // Assess
    expect(view.timeoutTracking).toMatchObject({
      totalExtensionsGranted: 30,
      workersWithExtensions: 1,
      workerExtensions: [
        {
          workerId: 'worker-a',
          extensionSeconds: 30,
          extensionsGranted: 1,
          grantedAt: '2026-03-01T12:00:05.000Z',
          estimatedCompletion: '2026-03-01T12:10:00.000Z',
          activeWorkflowCount: 1,
        },
      ],
    });
  });
});
