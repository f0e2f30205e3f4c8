import { expect } from 'vitest';
import { reportProgress } from '../../../shared/app/report-progress.js';
import { requestExtension } from '../../../shared/app/request-extension.js';
import { at } from '../../support/fixtures.js';
import { submit, tokenOf, type TestManager } from './test-manager.js';

/**
 * `job-1` (stuck threshold 600 s) with two workers: worker-a is granted 30 s at 0 s and then falls
 * silent, so it is failed from 91.001 s and its grant stops counting then; worker-b reports.
 */
export async function jobWithSilentGrantHolder(m: TestManager, timeoutSeconds: number): Promise<{ tokenA: string; tokenB: string }> {
  const submitted = await submit(m, {
    jobId: 'job-1',
    timeoutSeconds,
    stuckThresholdSeconds: 600,
    workflows: [
      { workflowId: 'wf-a', workerId: 'worker-a' },
      { workflowId: 'wf-b', workerId: 'worker-b' },
    ],
  });
  const tokens = { tokenA: tokenOf(submitted, 'wf-a'), tokenB: tokenOf(submitted, 'wf-b') };
  expect((await requestExtension(m.deps, { workerId: 'worker-a', token: tokens.tokenA, currentProgress: 0.1 })).granted).toBe(true);
  return tokens;
}

/** worker-b advances every 10 s from 10 s to 50 s and is granted its whole budget (58.125 s). */
export async function workerBTakesItsWholeBudget(m: TestManager, tokenB: string): Promise<void> {
  for (let i = 1; i <= 5; i++) {
    m.clock.set(at(i * 10));
    await reportProgress(m.deps, { jobId: 'job-1', workflowId: 'wf-b', workerId: 'worker-b', token: tokenB, progress: i / 10 });
    expect((await requestExtension(m.deps, { workerId: 'worker-b', token: tokenB, currentProgress: i / 10 })).granted).toBe(true);
  }
}
