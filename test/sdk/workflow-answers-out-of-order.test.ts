import { afterEach, describe, expect, it, vi } from 'vitest';
import { startWorkflow } from '../../shared/sdk/index.js';
import { holdingVigil, useFakeSdkTimers } from '../support/holding-vigil.js';

/**
 * A workflow took the deadline of whichever answer came last, not of the report Vigil read last: a
 * slow beat's answer, sent before a report that learned an extension, put the deadline back to the
 * one before it. The deadline watch then asked at that older deadline, and a Vigil that did not answer
 * within 5 s there stopped the work before the deadline Vigil had given it. As the agent numbers its
 * beats (checkpoint-request-answers-out-of-order.test.ts), an answer to a report sent before one already
 * answered is older news for the deadline; its `cancel` still stops the work.
 */
describe('a workflow whose answers arrive out of order', () => {
  afterEach(() => {
    vi.useRealTimers();
    vi.unstubAllGlobals();
  });

  const HOUR = 3_600_000;
  const iso = (ms: number) => new Date(ms).toISOString();
  const EARLIER = HOUR;
  const EXTENDED = HOUR + 30_000;

  /** A Vigil whose beats (no step) answer the earlier deadline and whose step reports answer the extended one, `cancel` when told. */
  function extendingVigil(cancel: () => boolean = () => false) {
    return holdingVigil(({ body }) => ({ status: cancel() ? 'CANCELLED' : 'RUNNING', cancel: cancel(), deadlineAt: iso('step' in body ? EXTENDED : EARLIER) }));
  }

  it('keeps the deadline of the later report when an earlier beat is answered after it', async () => {
    // Prepare: a beat every 10 s (a 40 s stuck threshold); Vigil holds the beat, then the worker reports a step
    useFakeSdkTimers();
    const vigil = extendingVigil();
    const work = await startWorkflow({ endpoint: vigil.endpoint, jobId: 'j', workflowId: 'wf', workerId: 'w', token: 't', stuckThresholdSeconds: 40 });
    vigil.hold();
    await vi.advanceTimersByTimeAsync(10_000);
    const reporting = work.progress('step-2');
    await vi.advanceTimersByTimeAsync(0);
    const [beat, stepReport] = vigil.unanswered();
    // Act: the step report is answered first, the beat sent before it after
    stepReport?.answer?.();
    await reporting;
    beat?.answer?.();
    await vi.advanceTimersByTimeAsync(0);
    work.stop();
    // Assess
    expect(work.deadlineAtMs).toBe(EXTENDED);
  });

  it('still stops on the cancel of an answer that comes late', async () => {
    // Prepare
    useFakeSdkTimers();
    let cancelled = false;
    const vigil = extendingVigil(() => cancelled);
    const work = await startWorkflow({ endpoint: vigil.endpoint, jobId: 'j', workflowId: 'wf', workerId: 'w', token: 't', stuckThresholdSeconds: 40 });
    vigil.hold();
    await vi.advanceTimersByTimeAsync(10_000);
    const reporting = work.progress('step-2');
    await vi.advanceTimersByTimeAsync(0);
    const [beat, stepReport] = vigil.unanswered();
    stepReport?.answer?.();
    await reporting;
    // Act: the job is cancelled before the late beat is answered
    cancelled = true;
    beat?.answer?.();
    await vi.advanceTimersByTimeAsync(0);
    work.stop();
    // Assess
    expect(work.signal.aborted).toBe(true);
  });
});
