import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { cancelJob } from '../../shared/app/cancel-job.js';
import { completeWorkflow } from '../../shared/app/complete-workflow.js';
import { requestExtension } from '../../shared/app/request-extension.js';
import { budgetCapSeconds } from '../../shared/domain/extension-budget.js';
import { decodeGrants } from '../../shared/domain/extension-ledger.js';
import { WorkflowMark } from '../../shared/domain/job.js';
import { at } from '../support/fixtures.js';
import { InterleavingJobStore } from './support/interleaving-job-store.js';
import { sameTable, submit, testManager, useTestManager, type TestManager } from './support/test-manager.js';

/**
 * docs/api.md: "a grant is answered only with a job it extended, and a denial spends nothing." Random
 * sequences of one worker's extension requests (tokens of two jobs, rising progress, clock moves), some
 * racing a cancel of a job or the worker's completion of a workflow that lands between the request's
 * read of that job and its job write, some racing another request of the same worker (a new one, or a
 * repeat of it by requestId) that runs to the end while the request waits before its grant record,
 * its job write or its budget write, so that the worker's grants reach its jobs out of order. After
 * every granted answer, some job must hold that very grant (the budget's epoch and count) for the
 * worker; and every job the worker is still active in holds every second it was answered granted
 * (each request once), never more than one budget (AD-26: 58.125 s).
 */

type Pause = 'grant-record' | 'job' | 'worker';
type Race =
  | { kind: 'none' }
  | { kind: 'cancel'; job: 0 | 1 }
  | { kind: 'complete'; job: 0 | 1 }
  /** Another request of the worker: `progressStep` from the waiting one's progress (below: it is the older, decided again), or the same request sent again. */
  | { kind: 'twin'; at: Pause; progressStep: -1 | 1; sameRequest: boolean };
type Step = { kind: 'advance'; seconds: number } | { kind: 'extend'; job: 0 | 1; race: Race };

const jobIndex = fc.constantFrom<0 | 1>(0, 1);
const race: fc.Arbitrary<Race> = fc.oneof(
  { weight: 1, arbitrary: fc.constant<Race>({ kind: 'none' }) },
  { weight: 1, arbitrary: fc.record({ kind: fc.constant('cancel' as const), job: jobIndex }) },
  { weight: 1, arbitrary: fc.record({ kind: fc.constant('complete' as const), job: jobIndex }) },
  {
    weight: 3,
    arbitrary: fc.record({
      kind: fc.constant('twin' as const),
      at: fc.constantFrom<Pause>('grant-record', 'job', 'worker'),
      progressStep: fc.constantFrom<-1 | 1>(-1, 1),
      sameRequest: fc.boolean(),
    }),
  },
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

/** Every job the worker is still active in (RUNNING, wf-1 not reported) holds the budget's grant and its seconds. */
async function expectActiveJobsHoldBudget(m: TestManager, grantedSeconds: number): Promise<void> {
  const budget = (await m.jobs.getWorker('worker-a'))?.budget;
  if (!budget || budget.epoch > 0) return;
  expect(budget.totalSeconds, 'the budget counts every second answered granted, each request once').toBeCloseTo(grantedSeconds, 6);
  for (const jobId of JOBS) {
    const job = await m.getJob(jobId);
    if (job.status !== 'RUNNING' || job.workflowMarks[0] !== WorkflowMark.active || budget.count === 0) continue;
    const mine = (await m.jobs.findGrantRecords(jobId, job.incarnation)).find((r) => r.workerId === 'worker-a');
    const held = mine && decodeGrants(job.tracking.workerGrants).get(mine.workerIndex);
    expect(held, `${jobId} holds the worker's grants`).toMatchObject({ epoch: budget.epoch, count: budget.count });
    expect(held?.seconds, `${jobId} holds every granted second (${grantedSeconds} s answered)`).toBeCloseTo(grantedSeconds, 6);
    expect(held?.seconds ?? 0).toBeLessThanOrEqual(budgetCapSeconds(m.deps.policy.extensions));
  }
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
        let requests = 0;
        /** Seconds answered granted, by request: a repeat of a request is the same grant. */
        const granted = new Map<string, number>();
        const answered = (requestId: string, answer: { granted: boolean; extensionSeconds: number }) => {
          if (!answer.granted) return;
          const before = granted.get(requestId);
          expect(before === undefined || before === answer.extensionSeconds, `request ${requestId} answered ${before} s, then ${answer.extensionSeconds} s`).toBe(true);
          granted.set(requestId, answer.extensionSeconds);
        };
        for (const s of steps) {
          if (s.kind === 'advance') {
            now += s.seconds;
            m.clock.set(at(now));
            continue;
          }
          const racing = s.race;
          progress += 0.05;
          const requestId = `r-${++requests}`;
          const token = tokens[s.job] ?? '';
          if (racing.kind === 'twin') {
            const twinId = racing.sameRequest ? requestId : `r-${++requests}`;
            const twinProgress = racing.sameRequest ? progress : progress + racing.progressStep * 0.025;
            const twin = async () =>
              answered(twinId, await requestExtension(sameTable(m), { workerId: 'worker-a', token, currentProgress: Math.min(twinProgress, 1), requestId: twinId }));
            if (racing.at === 'grant-record') store.beforeNextGrantRecord(twin);
            else if (racing.at === 'job') store.beforeNextSave(twin);
            else store.beforeNextWorkerSave(twin);
          } else if (racing.kind !== 'none') {
            const jobId = JOBS[racing.job];
            store.beforeNextSave(async () => {
              const other = sameTable(m);
              if (racing.kind === 'cancel') await cancelJob(other, jobId, 'race').catch(() => undefined);
              else await completeWorkflow(other, { jobId, workflowId: 'wf-1', workerId: 'worker-a', outcome: 'completed', token: tokens[racing.job] ?? '' }).catch(() => undefined);
            });
          }
          const answer = await requestExtension(m.deps, { workerId: 'worker-a', token, currentProgress: Math.min(progress, 1), requestId });
          // Drop a race the request never reached (no-op hooks)
          store.beforeNextSave(async () => undefined);
          store.beforeNextWorkerSave(async () => undefined);
          store.beforeNextGrantRecord(async () => undefined);
          answered(requestId, answer);
          if (answer.granted) {
            const budget = (await m.jobs.getWorker('worker-a'))?.budget;
            expect(budget, 'a granted answer spent a budget').toBeDefined();
            expect(await holdsGrant(m, budget?.epoch ?? -1, budget?.count ?? -1), `granted ${answer.extensionSeconds} s, but no job holds grant (${budget?.epoch}, ${budget?.count})`).toBe(true);
          }
          await expectActiveJobsHoldBudget(m, [...granted.values()].reduce((sum, seconds) => sum + seconds, 0));
        }
      }),
      { numRuns: Number(process.env['PROPERTY_RUNS'] ?? 60), ...(process.env['PROPERTY_SEED'] ? { seed: Number(process.env['PROPERTY_SEED']) } : {}) },
    );
  });
});
