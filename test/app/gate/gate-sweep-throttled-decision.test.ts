import { ProvisionedThroughputExceededException } from '@aws-sdk/client-dynamodb';
import { describe, expect, it } from 'vitest';
import { submitGateJob } from '../../../shared/app/gate/submit-gate-job.js';
import { sweepGateTimers } from '../../../shared/app/gate/sweep-gate-timers.js';
import { SWEEP_GRACE_MS } from '../../../shared/app/sweep-job-timers.js';
import { defaultGatePolicy } from '../../../shared/domain/gate/gate-policy.js';
import type { GateStore } from '../../../shared/ports/gate-store.js';
import { useGateWorld } from '../support/gate-world.js';

/** The real gate store, whose next write fails with DynamoDB's throttling error (as the SDK throws it after its attempts). */
function throttledOnce(gates: GateStore): GateStore {
  let throttled = false;
  return Object.assign(Object.create(gates) as GateStore, {
    save: (job: Parameters<GateStore['save']>[0], expectedVersion: number) => {
      if (throttled) return gates.save(job, expectedVersion);
      throttled = true;
      return Promise.reject(new ProvisionedThroughputExceededException({ $metadata: {}, message: 'injected' }));
    },
  });
}

// The gate's sweep runs the managers' sweep (sweep-due-timers.ts): a decision wake-up whose write is
// throttled is tried again in the same sweep, not left for the next one a minute later.
describe("the gate's sweep tries a throttled decision again in the same sweep (dynalite)", () => {
  const w = useGateWorld();

  it("a lost wake-up at the global deadline whose write is throttled once still acts in that sweep", async () => {
    // Prepare: the job's wake-up (its global deadline) was lost
    await submitGateJob(w.gate, { jobId: 'throttled', timeoutSeconds: 60, datacenters: { 'us-east-1': { workflows: [{ workflowId: 'wf-1', workerId: 'worker-a' }] } } });
    await w.pump();
    const dueAt = (await w.gateJob('throttled')).timerDueAt ?? 0;
    w.clock.set(dueAt + SWEEP_GRACE_MS);
    // Act
    const swept = await sweepGateTimers({ ...w.gate, gates: throttledOnce(w.gate.gates) });
    // Assess: the region was silent, so the gate waits a grace for its reports before declaring (on-gate-timer-fired.ts)
    expect(swept.fired).toBe(1);
    const job = await w.gateJob('throttled');
    expect(job).toMatchObject({ globallyTimedOut: false, extensionReportsAwaitedUntil: dueAt + SWEEP_GRACE_MS + defaultGatePolicy.extensionReportGraceSeconds * 1_000 });
    expect(job.timerFailures).toBeUndefined();
  });
});
