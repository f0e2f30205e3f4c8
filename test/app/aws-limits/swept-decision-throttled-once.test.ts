import { ProvisionedThroughputExceededException } from '@aws-sdk/client-dynamodb';
import { describe, expect, it } from 'vitest';
import { DETECTION_BOUND_MS, SWEEP_INTERVAL_MS } from '../../../shared/app/detection-bound.js';
import { SWEEP_GRACE_MS, sweepJobTimers } from '../../../shared/app/sweep-job-timers.js';
import { at } from '../../support/fixtures.js';
import { submit, useTestManager, type TestManager } from '../support/test-manager.js';

const THROTTLE = 'vigil-test-throttle-next-job-write';

/**
 * The next PutItem on the job item `jobId` fails with DynamoDB's throttling error, as the SDK throws
 * it once its own attempts are spent (a hot item: a 10,000-workflow job's item is 10–200 KB, so every
 * whole-item write costs 10–200 WCU against DynamoDB's 1,000 WCU/s per item). Applied before the SDK's
 * retry step, so the SDK does not try again. Returns the undo.
 */
function throttleNextJobWrite(m: TestManager, jobId: string): () => void {
  let armed = true;
  m.doc.middlewareStack.add(
    (next, context) => async (args) => {
      const input = args.input as { Item?: { pk?: { S?: string }; sk?: { S?: string } } };
      if (armed && context.commandName === 'PutItemCommand' && input.Item?.pk?.S === `JOB#${jobId}` && input.Item.sk?.S === 'JOB') {
        armed = false;
        throw new ProvisionedThroughputExceededException({ $metadata: {}, message: 'The level of configured provisioned throughput for the table was exceeded (injected once)' });
      }
      return next(args);
    },
    { step: 'build', name: THROTTLE },
  );
  return () => m.doc.middlewareStack.remove(THROTTLE);
}

/**
 * Review finding (AWS limits): the backstop sweep is the handler of last resort for a lost wake-up,
 * and README/`detection-bound.ts` state that a RUNNING job ends by its deadline + 70 s even then. But a
 * swept fire that fails once (one throttled write of a hot job item, or MAX_DECIDE_ATTEMPTS lost
 * races) is backed off by `backOffFailedWakeUp`: `timerDueAt` moves 30 s later (doubling per failure,
 * up to 15 min), so the next sweep skips it unless it is past that too, and its own redelivered SQS
 * message is dropped as `superseded` meanwhile. One transient throttle makes the end ~125 s late
 * instead of ≤ 70 s; k failures in a row, 30·2^(k-1) s more each.
 */
describe('a swept timeout whose write is throttled once (dynalite + injected ProvisionedThroughputExceeded)', () => {
  const m = useTestManager();

  it('the job still ends within its deadline plus the stated detection bound, with a sweep every minute', async () => {
    // Prepare: a 60 s job whose own SQS wake-up was lost; sweeps run every minute, the first one
    // just before the wake-up is past its grace (the worst phase for the bound).
    await submit(m, { jobId: 'job-1', timeoutSeconds: 60, stuckThresholdSeconds: 3_600, workflows: [{ workflowId: 'wf-1', workerId: 'worker-a' }] });
    const deadline = at(60);
    const sweeps = Array.from({ length: 4 }, (_, i) => deadline + SWEEP_GRACE_MS - 1 + i * SWEEP_INTERVAL_MS);
    const undo = throttleNextJobWrite(m, 'job-1');
    let endedAt: number | undefined;
    try {
      // Act
      for (const sweepAt of sweeps) {
        m.clock.set(sweepAt);
        await sweepJobTimers(m.deps);
        if ((await m.getJob('job-1')).status !== 'RUNNING') {
          endedAt = sweepAt;
          break;
        }
      }
    } finally {
      undo();
    }
    // Assess
    expect(endedAt, 'the job was never timed out').toBeDefined();
    expect((endedAt as number) - deadline).toBeLessThanOrEqual(DETECTION_BOUND_MS);
  });
});
