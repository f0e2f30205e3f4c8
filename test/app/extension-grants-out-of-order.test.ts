import { describe, expect, it } from 'vitest';
import { requestExtension, type ExtensionAnswer } from '../../shared/app/request-extension.js';
import { budgetCapSeconds } from '../../shared/domain/extension-budget.js';
import { InterleavingJobStore } from './support/interleaving-job-store.js';
import { extensionsOf, sameTable, submit, tokenOf, useTestManager } from './support/test-manager.js';

const body = { jobId: 'job-1', timeoutSeconds: 300, stuckThresholdSeconds: 3_600, workflows: [{ workflowId: 'wf-1', workerId: 'worker-a' }] };

/**
 * A reviewer's report: two requests of one worker on one job whose applies land on the job out of
 * order leave the job with the newer grant's added seconds only (15 of 45 s) while the older one was
 * answered granted. Here the older request pauses at each point between its budget read and its
 * budget write (before its grant record, its job write, its budget write) while newer requests run to the end;
 * the granted answers must add up to what the job holds for the worker, and stay within the budget.
 * A request writes its jobs before its budget (the budget write is conditional on the version it
 * read), so no newer grant is decided before the older one is on the job: a budget-first order fails
 * these (15 of 45 s held).
 */
describe('one worker\'s requests landing on its job out of order (dynalite)', () => {
  let store: InterleavingJobStore;
  const m = useTestManager({ store: (doc, table) => (store = new InterleavingJobStore(doc, table)) });

  async function start() {
    const token = tokenOf(await submit(m, body), 'wf-1');
    return (currentProgress: number, requestId: string, deps = m.deps) => requestExtension(deps, { workerId: 'worker-a', token, currentProgress, requestId });
  }

  const grantedSeconds = (answers: ReadonlyArray<ExtensionAnswer | undefined>) =>
    answers.reduce((sum, a) => sum + (a?.granted ? a.extensionSeconds : 0), 0);

  async function expectJobHoldsEveryGrant(answers: ReadonlyArray<ExtensionAnswer | undefined>) {
    const held = (await extensionsOf(m, 'job-1')).get('worker-a') ?? 0;
    expect(held, `answers ${JSON.stringify(answers.map((a) => a && [a.granted, a.extensionSeconds]))}`).toBe(grantedSeconds(answers));
    expect(held).toBeLessThanOrEqual(budgetCapSeconds(m.deps.policy.extensions));
  }

  for (const pause of ['before its grant record', 'before its job write', 'before its budget write'] as const) {
    for (const [newer, olderProgress] of [[1, 0.05], [2, 0.05], [4, 0.05], [1, 0.9], [2, 0.9], [4, 0.9]] as const) {
      it(`the older request (progress ${olderProgress}) paused ${pause} while ${newer} newer one(s) run: the job holds every granted second`, async () => {
        // Prepare
        const ask = await start();
        const newerAnswers: ExtensionAnswer[] = [];
        const runNewer = async () => {
          for (let i = 1; i <= newer; i++) newerAnswers.push(await ask(0.1 + i * 0.1, `newer-${i}`, sameTable(m)));
        };
        if (pause === 'before its grant record') store.beforeNextGrantRecord(runNewer);
        else if (pause === 'before its job write') store.beforeNextSave(runNewer);
        else store.beforeNextWorkerSave(runNewer);
        // Act
        const older = await ask(olderProgress, 'older');
        // Assess
        expect(newerAnswers).toHaveLength(newer);
        await expectJobHoldsEveryGrant([older, ...newerAnswers]);
      });
    }
  }

  it('the older request retried (same requestId) after the newer one landed: answered once, held once', async () => {
    // Prepare
    const ask = await start();
    const answers: ExtensionAnswer[] = [];
    store.beforeNextSave(async () => {
      answers.push(await ask(0.1, 'older', sameTable(m)));
      answers.push(await ask(0.2, 'newer', sameTable(m)));
    });
    // Act
    const older = await ask(0.1, 'older');
    // Assess: the repeat is the same grant, not a second one
    expect(older).toMatchObject({ granted: true, extensionSeconds: answers[0]?.extensionSeconds });
    await expectJobHoldsEveryGrant(answers);
  });
});
