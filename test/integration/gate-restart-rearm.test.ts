import './gate/quiet-logs.js';
import { describe, expect, it } from 'vitest';
import { VirtualClock } from '../../shared/adapters/local/virtual-clock.js';
import type { LocalCloud } from '../../shared/local/local-cloud.js';
import { GateClient, tokenOf } from '../support/gate-client.js';
import { ok, VigilClient } from '../support/vigil-client.js';
import { useTempClouds } from './support/temp-clouds.js';

const { tempDir, start, close } = useTempClouds('vigil-gate-rearm-');

const T0 = Date.parse('2030-01-01T00:00:00.000Z');
const REGION = 'us-east-1';
/** The deployed backstop cadence (the virtual clock's default, named here because the bounds below are stated against it). */
const SWEEP_EVERY_MS = 60_000;
const workflows = [{ workflowId: 'wf-1', workerId: 'worker-a' }];

const regionOf = (cloud: LocalCloud) => new VigilClient(cloud.endpoints.regions[REGION] ?? '');

/**
 * After a crash and a restart on the same data dir, a gate job whose only driver left is the gate's own
 * stored wake-up: the region says nothing that would decide it, and the gate's sweep (the backstop) runs
 * only a minute after the restart. So the outcome on time can come from the restart's re-arm alone
 * (`resume` in shared/local/local-gate.ts). Closing the first cloud stands for the `kill -9`: its
 * in-memory timers are gone, its data dir stays, and nothing was in flight (the clock had settled).
 */
describe('restart: the gate re-arms its stored wake-ups (virtual clock, dynalite on disk)', () => {
  it('a gate job whose region completed unheard and whose deadline passed while Vigil was down ends one report grace after the restart', async () => {
    // Prepare: the region completes while cut off from the gate, so its JobFinalStatus is lost and
    // the region, its job finished, never reports again; the gate still shows it running.
    const dataDir = tempDir();
    const clock = new VirtualClock(T0);
    const first = await start(dataDir, { clock, sweepIntervalMs: SWEEP_EVERY_MS });
    const gate = new GateClient(first.endpoints.gate);
    const submitted = ok(await gate.submitJob({ jobId: 'lost-final', timeoutSeconds: 10, stuckThresholdSeconds: 600, datacenters: { [REGION]: { workflows } } }));
    ok(await gate.setFaults({ cutOff: [REGION] }));
    ok(await regionOf(first).complete('lost-final', 'wf-1', { workerId: 'worker-a', outcome: 'completed' }, tokenOf(submitted, REGION, 'wf-1')));
    await clock.settle();
    const beforeCrash = ok(await gate.getJob('lost-final'));
    await close(first);

    // Act: restart 30 s later: the deadline (10 s) and the gate's check of it (plus one report grace)
    // passed while Vigil was down.
    const restartedAt = T0 + 30_000;
    const restartedClock = new VirtualClock(restartedAt);
    const second = await start(dataDir, { clock: restartedClock, sweepIntervalMs: SWEEP_EVERY_MS });
    const graceMs = second.gate.deps.policy.extensionReportGraceSeconds * 1_000;
    const armedAtRestart = second.gate.timers.pending;
    const restartedGate = new GateClient(second.endpoints.gate);
    // The overdue wake-up fires at once and, the region unheard since before its deadline, waits one
    // grace for its reports; then the gate declares, which asks the region, which answers COMPLETED.
    // Without the re-arm the first sweep would fire it, at 60 s, and the job would end a grace later.
    await restartedClock.advanceTo(restartedAt + graceMs - 1);
    const justBefore = ok(await restartedGate.getJob('lost-final'));
    await restartedClock.advanceTo(restartedAt + graceMs);
    const ended = ok(await restartedGate.getJob('lost-final'));

    // Assess
    expect(graceMs).toBeLessThan(SWEEP_EVERY_MS);
    expect(beforeCrash).toMatchObject({ status: 'RUNNING', datacenters: { [REGION]: { status: 'running' } } });
    expect(ok(await regionOf(second).getJob('lost-final')).status).toBe('COMPLETED');
    expect(justBefore.status).toBe('RUNNING');
    expect(ended, `gate wake-ups re-armed at the restart: ${armedAtRestart}`).toMatchObject({
      status: 'COMPLETED',
      globallyTimedOut: false,
      withdrawnTimeoutReason: 'timeout',
      datacenters: { [REGION]: { status: 'completed' } },
    });
  }, 60_000);

  it('a gate cancel whose send was lost reaches the region at its stored re-send after the restart, not at the region\'s next report', async () => {
    // Prepare: the region reports every 30 s (the gate re-sends every 1 s): a report would fetch the
    // decision too, but not before then. The cancel is decided while the region is cut off.
    const dataDir = tempDir();
    const clock = new VirtualClock(T0);
    const knobs = { sweepIntervalMs: SWEEP_EVERY_MS, gateReportIntervalSeconds: 30, rebroadcastSeconds: 1 };
    const first = await start(dataDir, { clock, ...knobs });
    const gate = new GateClient(first.endpoints.gate);
    ok(await gate.submitJob({ jobId: 'lost-cancel', timeoutSeconds: 600, stuckThresholdSeconds: 600, datacenters: { [REGION]: { workflows } } }));
    ok(await gate.setFaults({ cutOff: [REGION] }));
    ok(await gate.cancel('lost-cancel', { reason: 'operator' }));
    await clock.settle();
    const regionBeforeCrash = ok(await regionOf(first).getJob('lost-cancel'));
    const decidedAt = clock.now();
    await close(first);

    // Act: restart at once; the re-send was due 1 s after the decision.
    const restartedClock = new VirtualClock(decidedAt);
    const second = await start(dataDir, { clock: restartedClock, ...knobs });
    const armedAtRestart = second.gate.timers.pending;
    const resendAt = decidedAt + 1_000;
    await restartedClock.advanceTo(resendAt - 1);
    const justBefore = ok(await regionOf(second).getJob('lost-cancel'));
    await restartedClock.advanceTo(resendAt);
    const region = ok(await regionOf(second).getJob('lost-cancel'));
    const gateView = ok(await new GateClient(second.endpoints.gate).getJob('lost-cancel'));

    // Assess: the region's next report (T0 + 30 s) and the first sweep (60 s on) were still ahead.
    expect(resendAt).toBeLessThan(T0 + knobs.gateReportIntervalSeconds * 1_000);
    expect(regionBeforeCrash.status).toBe('RUNNING');
    expect(justBefore.status).toBe('RUNNING');
    expect(region.status, `gate wake-ups re-armed at the restart: ${armedAtRestart}`).toBe('CANCELLED');
    expect(gateView).toMatchObject({ status: 'CANCELLED', datacenters: { [REGION]: { status: 'cancelled' } } });
  }, 60_000);
});
