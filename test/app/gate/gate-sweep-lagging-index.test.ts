import { describe, expect, it } from 'vitest';
import { submitGateJob } from '../../../shared/app/gate/submit-gate-job.js';
import { sweepGateTimers } from '../../../shared/app/gate/sweep-gate-timers.js';
import { SWEEP_GRACE_MS } from '../../../shared/app/sweep-job-timers.js';
import { defaultGatePolicy } from '../../../shared/domain/gate/gate-policy.js';
import type { GateStore } from '../../../shared/ports/gate-store.js';
import { at } from '../../support/fixtures.js';
import { useGateWorld } from '../support/gate-world.js';

/** The real gate store, whose timer index (a GSI) still shows each entry's previous fence. */
function laggingIndex(gates: GateStore): GateStore {
  return Object.assign(Object.create(gates) as GateStore, {
    findDueTimers: async (dueBy: number, limit: number) =>
      (await gates.findDueTimers(dueBy, limit)).map((timer) => ({ ...timer, fenceToken: timer.fenceToken - 1 })),
  });
}

// Noticed in the last review: the managers' sweep fires a job's own wake-up when the index entry it
// read lags the item (an older fence) and the own one is presumed lost; the gate's sweep dropped such
// an entry as stale, wasting its pass, so a lost wake-up waited for the next sweep or longer.
describe("the gate's sweep over a lagging timer index (dynalite)", () => {
  const w = useGateWorld();

  it('an entry with an older fence fires the gate job\'s own overdue wake-up: each pass acts on it', async () => {
    // Prepare: the job's wake-up (its global deadline) was lost; the index still shows an older fence
    await submitGateJob(w.gate, { jobId: 'lagging', timeoutSeconds: 60, datacenters: { 'us-east-1': { workflows: [{ workflowId: 'wf-1', workerId: 'worker-a' }] } } });
    await w.pump();
    const dueAt = (await w.gateJob('lagging')).timerDueAt ?? 0;
    expect(dueAt).toBeGreaterThanOrEqual(at(60));
    w.clock.set(dueAt + SWEEP_GRACE_MS);
    // Act: the pass acts on the job's own wake-up; the region was silent, so the gate first waits a
    // grace for its reports (on-gate-timer-fired.ts), and the next pass, over the same lagging index, declares.
    const swept = await sweepGateTimers({ ...w.gate, gates: laggingIndex(w.gate.gates) });
    const waiting = await w.gateJob('lagging');
    w.clock.set((waiting.timerDueAt ?? 0) + SWEEP_GRACE_MS);
    const sweptAgain = await sweepGateTimers({ ...w.gate, gates: laggingIndex(w.gate.gates) });
    // Assess
    expect(swept.fired).toBe(1);
    expect(waiting).toMatchObject({ globallyTimedOut: false, extensionReportsAwaitedUntil: dueAt + SWEEP_GRACE_MS + defaultGatePolicy.extensionReportGraceSeconds * 1_000 });
    expect(sweptAgain.fired).toBe(1);
    expect(await w.gateJob('lagging')).toMatchObject({ globallyTimedOut: true });
    expect(dueAt).toBe(at(60 + defaultGatePolicy.extensionReportGraceSeconds));
  });
});
