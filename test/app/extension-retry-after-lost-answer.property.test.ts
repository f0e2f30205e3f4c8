import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { reportProgress } from '../../shared/app/report-progress.js';
import { requestExtension, type ExtensionAnswer } from '../../shared/app/request-extension.js';
import { budgetCapSeconds } from '../../shared/domain/extension-budget.js';
import { defaultExtensionPolicy } from '../../shared/domain/policy.js';
import { secondsToMs } from '../../shared/domain/time.js';
import { submit, testManager, tokenOf, useTestManager, type TestManager } from './support/test-manager.js';

/**
 * AD-26 with lost answers: an extension request is applied, its answer is lost (a 504, a client
 * timeout), and the worker's SDK sends it again with the same `requestId`: later, after other
 * requests, or while the first is still being decided. The repeat used to be decided again and
 * denied ("no progress since last extension", or the budget spent), so the worker was told it had
 * no extension while the first one was in force. Random mixes through the real use cases on
 * dynalite: no worker is granted more than its budget, every try of a request once granted reads
 * granted with the same seconds, and the job holds exactly the grants answered.
 */

const CAP_SECONDS = budgetCapSeconds(defaultExtensionPolicy);
const MAX_EXTENSIONS = defaultExtensionPolicy.maxExtensions;

type Step =
  /** A new request; `showsProgress`: its progress is above the last one sent; `twin`: a second try goes while the first is decided. */
  | { kind: 'ask'; showsProgress: boolean; twin: boolean }
  /** A try of an earlier request again, the same body and id (`which` picks it among those sent). */
  | { kind: 'repeat'; which: number }
  /** Time passes, and the worker reports (it stays healthy). */
  | { kind: 'beat'; seconds: number };

const step: fc.Arbitrary<Step> = fc.oneof(
  { weight: 3, arbitrary: fc.record({ kind: fc.constant('ask' as const), showsProgress: fc.boolean(), twin: fc.boolean() }) },
  { weight: 3, arbitrary: fc.record({ kind: fc.constant('repeat' as const), which: fc.nat() }) },
  { weight: 1, arbitrary: fc.record({ kind: fc.constant('beat' as const), seconds: fc.integer({ min: 1, max: 20 }) }) },
);

interface Sent {
  requestId: string;
  currentProgress: number;
  answers: ExtensionAnswer[];
}

async function run(m: TestManager, steps: readonly Step[]): Promise<Sent[]> {
  const submitted = await submit(m, { jobId: 'job-1', timeoutSeconds: 100_000, stuckThresholdSeconds: 100_000, workflows: [{ workflowId: 'wf-1', workerId: 'worker-a' }] });
  const token = tokenOf(submitted, 'wf-1');
  await reportProgress(m.deps, { jobId: 'job-1', workflowId: 'wf-1', workerId: 'worker-a', token });
  const sent: Sent[] = [];
  let progress = 0.1;
  const tryOnce = async (request: Sent) => {
    request.answers.push(await requestExtension(m.deps, { workerId: 'worker-a', token, currentProgress: request.currentProgress, requestId: request.requestId }));
  };
  for (const s of steps) {
    if (s.kind === 'beat') {
      m.clock.set(m.clock.now() + secondsToMs(s.seconds));
      await reportProgress(m.deps, { jobId: 'job-1', workflowId: 'wf-1', workerId: 'worker-a', token });
    } else if (s.kind === 'ask') {
      if (s.showsProgress) progress += 0.01;
      const request: Sent = { requestId: `req-${sent.length}`, currentProgress: progress, answers: [] };
      sent.push(request);
      await Promise.all(s.twin ? [tryOnce(request), tryOnce(request)] : [tryOnce(request)]);
    } else {
      const request = sent[s.which % Math.max(1, sent.length)];
      if (request) await tryOnce(request);
    }
  }
  return sent;
}

describe('AD-26: an extension request repeated after its answer was lost (real use cases on dynalite)', () => {
  const harness = useTestManager();

  it('never more than the budget; every try of a granted request reads granted, with its seconds; the job holds the grants answered', { timeout: 180_000 }, async () => {
    let repeatsOfGrants = 0;
    await fc.assert(
      fc.asyncProperty(fc.array(step, { minLength: 3, maxLength: 25 }), async (steps) => {
        const m = await testManager(harness.dynamo);
        const sent = await run(m, steps);
        const granted = sent.filter((request) => request.answers.some((answer) => answer.granted));
        for (const request of granted) {
          const seconds = new Set(request.answers.map((answer) => (answer.granted ? answer.extensionSeconds : -1)));
          // Every try granted (none read `denied` or another grant), the first as every repeat.
          expect([...seconds], `tries of ${request.requestId}`).toEqual([request.answers.find((answer) => answer.granted)?.extensionSeconds]);
          repeatsOfGrants += request.answers.length - 1;
        }
        const grantedSeconds = granted.reduce((total, request) => total + (request.answers[0]?.extensionSeconds ?? 0), 0);
        expect(granted.length).toBeLessThanOrEqual(MAX_EXTENSIONS);
        expect(grantedSeconds).toBeLessThanOrEqual(CAP_SECONDS);
        const worker = await m.jobs.getWorker('worker-a');
        expect(worker?.budget).toMatchObject({ count: granted.length, totalSeconds: grantedSeconds });
        expect((await m.getJob('job-1')).tracking.totalExtensionsGranted).toBe(grantedSeconds);
      }),
      { numRuns: Number(process.env['PROPERTY_RUNS'] ?? 25) },
    );
    // Repeats of granted requests were sent, not only generated.
    expect(repeatsOfGrants).toBeGreaterThan(0);
  });
});
