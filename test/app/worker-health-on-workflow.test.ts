import { beforeEach, describe, expect, it } from 'vitest';
import { completeWorkflow } from '../../shared/app/complete-workflow.js';
import { currentWorkerHealth } from '../../shared/app/current-worker-health.js';
import { reportProgress } from '../../shared/app/report-progress.js';
import { at } from '../support/fixtures.js';
import { submit, tokenOf, useTestManager, writesByItem } from './support/test-manager.js';

// A report that writes its workflow carries the worker's health there (AD-26 healthchecks are
// every call): the worker item is written at the first call only, and nothing loses the time.
const body = {
  jobId: 'job-1',
  timeoutSeconds: 600,
  stuckThresholdSeconds: 120,
  workflows: [
    { workflowId: 'wf-1', workerId: 'worker-a' },
    { workflowId: 'wf-2', workerId: 'worker-a' },
  ],
};

describe("the worker's health rides on its workflow's write (dynalite)", () => {
  const m = useTestManager();
  let tokens: { wf1: string; wf2: string };
  beforeEach(async () => {
    const submitted = await submit(m, body);
    tokens = { wf1: tokenOf(submitted, 'wf-1'), wf2: tokenOf(submitted, 'wf-2') };
  });

  const report = (seconds: number, workflowId: 'wf-1' | 'wf-2') => {
    m.clock.set(at(seconds));
    const token = workflowId === 'wf-1' ? tokens.wf1 : tokens.wf2;
    return reportProgress(m.deps, { jobId: 'job-1', workflowId, workerId: 'worker-a', step: seconds, token });
  };

  it("later calls leave the worker item alone, and its health is read from the workflows", async () => {
    // Prepare: the first call writes the worker item
    await report(1, 'wf-1');
    m.calls.length = 0;
    // Act: wf-1 again, wf-2's first call (it touches the worker too: the index may not list wf-2 yet on AWS), wf-1 again
    await report(30, 'wf-1');
    await report(45, 'wf-2');
    await report(60, 'wf-1');
    // Assess
    expect(writesByItem(m.calls)).toEqual(['WF', 'WF', 'WORKER', 'WF']);
    expect((await m.jobs.getWorker('worker-a'))?.lastHealthAt).toBe(at(45));
    expect((await currentWorkerHealth(m.deps, 'worker-a'))?.lastHealthAt).toBe(at(60));
  });

  it('a workflow leaving the index hands its last call to the worker item first', async () => {
    // Prepare
    await report(1, 'wf-1');
    await report(50, 'wf-1');
    // Act: its outcome takes wf-1 out of the worker's index
    m.clock.set(at(51));
    await completeWorkflow(m.deps, { jobId: 'job-1', workflowId: 'wf-1', workerId: 'worker-a', outcome: 'completed', token: tokens.wf1 });
    // Assess: the time of the call at 50 s is still the worker's
    expect((await m.jobs.getWorker('worker-a'))?.lastHealthAt).toBe(at(50));
    expect((await currentWorkerHealth(m.deps, 'worker-a'))?.lastHealthAt).toBe(at(50));
  });
});
