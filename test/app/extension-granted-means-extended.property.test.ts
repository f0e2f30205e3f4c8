import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { cancelJob } from '../../shared/app/cancel-job.js';
import { completeWorkflow } from '../../shared/app/complete-workflow.js';
import { requestExtension } from '../../shared/app/request-extension.js';
import { decodeGrants } from '../../shared/domain/extension-ledger.js';
import { at } from '../support/fixtures.js';
import { InterleavingJobStore } from './support/interleaving-job-store.js';
import { sameTable, submit, testManager, useTestManager, type TestManager } from './support/test-manager.js';

/**
 * docs/api.md: "a grant is answered only with a job it extended, and a denial spends nothing." Random
 * sequences of one worker's extension requests (tokens of two jobs, rising progress, clock moves), some
 * racing a cancel of a job or the worker's completion of a workflow that lands between the request's
 * read of that job and its job write. After every granted answer, some job must hold that very grant
 * (the budget's epoch and count) for the worker.
 */

type Race = { kind: 'none' } | { kind: 'cancel'; job: 0 | 1 } | { kind: 'complete'; job: 0 | 1 };
type Step = { kind: 'advance'; seconds: number } | { kind: 'extend'; job: 0 | 1; race: Race };

const jobIndex = fc.constantFrom<0 | 1>(0, 1);
const race: fc.Arbitrary<Race> = fc.oneof(
  { weight: 1, arbitrary: fc.constant<Race>({ kind: 'none' }) },
  { weight: 1, arbitrary: fc.record({ kind: fc.constant('cancel' as const), job: jobIndex }) },
  { weight: 1, arbitrary: fc.record({ kind: fc.constant('complete' as const), job: jobIndex }) },
);
const step: fc.Arbitrary<Step> = fc.oneof(
  { weight: 1, arbitrary: fc.record({ kind: fc.constant('advance' as const), seconds: fc.integer({ min: 1, max: 20 }) }) },
  { weight: 3, arbitrary: fc.record({ kind: fc.constant('extend' as const), job: jobIndex, race }) },
);

const JOBS = ['job-1', 'job-2'] as const;

async function holdsGrant(m: TestManager, epoch: number, count: number): Promise<boolean> {
  for (const jobId of JOBS) {
    const job = await m.getJob(jobId);
    const records = await m.jobs.findGrantRecords(jobId, job.incarnation);
    const mine = records.find((r) => r.workerId === 'worker-a');
    const grant = mine && decodeGrants(job.tracking.workerGrants).get(mine.workerIndex);
    if (grant && grant.epoch === epoch && grant.count === count) return true;
  }
  return false;
}

describe('AD-26 property: every granted answer extended a job (dynalite)', () => {
  const harness = useTestManager();

  it('after every granted request some job holds its grant', { timeout: 180_000 }, async () => {
    await fc.assert(
      fc.asyncProperty(fc.array(step, { minLength: 1, maxLength: 12 }), async (steps) => {
        let store!: InterleavingJobStore;
        const m = await testManager(harness.dynamo, { store: (doc, table) => (store = new InterleavingJobStore(doc, table)) });
        const tokens: string[] = [];
        for (const jobId of JOBS) {
          const { tokens: t } = await submit(m, { jobId, timeoutSeconds: 1_000, stuckThresholdSeconds: 100_000, workflows: [{ workflowId: 'wf-1', workerId: 'worker-a' }, { workflowId: 'wf-2', workerId: 'worker-b' }] });
          tokens.push(t['wf-1'] ?? '');
        }
        let now = 0;
        let progress = 0;
        for (const s of steps) {
          if (s.kind === 'advance') {
            now += s.seconds;
            m.clock.set(at(now));
            continue;
          }
          const racing = s.race;
          if (racing.kind !== 'none') {
            const jobId = JOBS[racing.job];
            store.beforeNextSave(async () => {
              const other = sameTable(m);
              if (racing.kind === 'cancel') await cancelJob(other, jobId, 'race').catch(() => undefined);
              else await completeWorkflow(other, { jobId, workflowId: 'wf-1', workerId: 'worker-a', outcome: 'completed', token: tokens[racing.job] ?? '' }).catch(() => undefined);
            });
          }
          progress += 0.05;
          const answer = await requestExtension(m.deps, { workerId: 'worker-a', token: tokens[s.job] ?? '', currentProgress: Math.min(progress, 1) });
          store.beforeNextSave(async () => undefined); // drop a race the request never reached (a no-op hook)
          if (answer.granted) {
            const budget = (await m.jobs.getWorker('worker-a'))?.budget;
            expect(budget, 'a granted answer spent a budget').toBeDefined();
            expect(await holdsGrant(m, budget?.epoch ?? -1, budget?.count ?? -1), `granted ${answer.extensionSeconds} s, but no job holds grant (${budget?.epoch}, ${budget?.count})`).toBe(true);
          }
        }
      }),
      { numRuns: Number(process.env['PROPERTY_RUNS'] ?? 60), ...(process.env['PROPERTY_SEED'] ? { seed: Number(process.env['PROPERTY_SEED']) } : {}) },
    );
  });
});
