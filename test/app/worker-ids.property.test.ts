import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { reportProgress } from '../../shared/app/report-progress.js';
import { reportWorkerFailure } from '../../shared/app/report-worker-failure.js';
import { requestExtension } from '../../shared/app/request-extension.js';
import { extensionsOf, submit, testManager, tokenOf, useTestManager } from './support/test-manager.js';

const ID_CHARS = 'ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789._:-'.split('');
/** Built-in property names of plain objects: as map keys they used to break every request. */
const BUILT_IN_NAMES = ['constructor', '__proto__', 'toString', 'hasOwnProperty', 'valueOf', 'prototype'];

const workerId = fc.oneof(
  fc.constantFrom(...BUILT_IN_NAMES),
  fc.string({ unit: fc.constantFrom(...ID_CHARS), minLength: 1, maxLength: 128 }),
);

describe('any valid worker id works through the real extension use case (dynalite)', () => {
  const harness = useTestManager();

  it('two workers with arbitrary valid ids extend a job, one fails: each one\'s grant is its own', { timeout: 60_000 }, async () => {
    await fc.assert(
      fc.asyncProperty(fc.uniqueArray(workerId, { minLength: 2, maxLength: 2 }), async ([a, b]) => {
        if (a === undefined || b === undefined) throw new Error('two ids expected');
        // Prepare: a fresh table per run, so ids repeated across runs start from nothing
        const m = await testManager(harness.dynamo);
        const jobId = 'job-1';
        const submitted = await submit(m, {
          jobId,
          timeoutSeconds: 300,
          workflows: [
            { workflowId: 'wf-a', workerId: a },
            { workflowId: 'wf-b', workerId: b },
          ],
        });
        // Act
        await reportProgress(m.deps, { jobId, workflowId: 'wf-a', workerId: a, token: tokenOf(submitted, 'wf-a'), progress: 0.1 });
        const answerA = await requestExtension(m.deps, { workerId: a, token: tokenOf(submitted, 'wf-a'), currentProgress: 0.5 });
        const answerB = await requestExtension(m.deps, { workerId: b, token: tokenOf(submitted, 'wf-b'), currentProgress: 0.5 });
        const bothExtended = await extensionsOf(m, jobId);
        await reportWorkerFailure(m.deps, a);
        // Assess
        expect(answerA).toMatchObject({ granted: true });
        expect(answerB).toMatchObject({ granted: true });
        expect(bothExtended.size).toBe(2);
        expect(await extensionsOf(m, jobId)).toEqual(new Map([[b, bothExtended.get(b)]]));
        expect([...bothExtended.values()].every((seconds) => seconds <= 58.125)).toBe(true);
      }),
      { numRuns: 25 },
    );
  });
});
