import './gate/quiet-logs.js';
import { describe, expect, it } from 'vitest';
import { VirtualClock } from '../../shared/adapters/local/virtual-clock.js';
import { OUTBOX_RETRY_MS } from '../../shared/app/decide-and-save.js';
import type { LocalCloud } from '../../shared/local/local-cloud.js';
import { GateClient, tokenOf } from '../support/gate-client.js';
import { ok, VigilClient } from '../support/vigil-client.js';
import { useTempClouds } from './support/temp-clouds.js';

const { tempDir, start, close } = useTempClouds('vigil-close-mid-publish-');

const T0 = Date.parse('2030-01-01T00:00:00.000Z');
const REGION = 'us-east-1';
const TIMEOUT_SECONDS = 600;
const workflows = [{ workflowId: 'wf-1', workerId: 'worker-a' }];

const regionOf = (cloud: LocalCloud) => new VigilClient(cloud.endpoints.regions[REGION] ?? '');

/**
 * Ctrl-C (`close()`) stops the event network first, then lets the handlers still running end before
 * the stores close. An event such a handler publishes in between must stay in its sender's outbox, so
 * the restart sends it: a network that took it and dropped it let the sender clear its outbox.
 */
describe('an orderly stop while a handler publishes', () => {
  it("a region's JobFinalStatus published after the network closed reaches the gate after the restart, at the outbox retry, not at the job's deadline", async () => {
    // Prepare: a gate job running in one region; the stop has begun (its network is closed) when the
    // region's last workflow completes.
    const dataDir = tempDir();
    const clock = new VirtualClock(T0);
    const first = await start(dataDir, { clock, sweepIntervalMs: 60_000 });
    const gate = new GateClient(first.endpoints.gate);
    const submitted = ok(
      await gate.submitJob({ jobId: 'closing', timeoutSeconds: TIMEOUT_SECONDS, stuckThresholdSeconds: 600, datacenters: { [REGION]: { workflows } } }),
    );
    await clock.settle();
    first.network.close();
    ok(await regionOf(first).complete('closing', 'wf-1', { workerId: 'worker-a', outcome: 'completed' }, tokenOf(submitted, REGION, 'wf-1')));
    await close(first);

    // Act: start again on the same data dir, and let the outbox's retry come due.
    const restartedAt = clock.now();
    const restartedClock = new VirtualClock(restartedAt);
    const second = await start(dataDir, { clock: restartedClock, sweepIntervalMs: 60_000 });
    await restartedClock.advanceTo(restartedAt + OUTBOX_RETRY_MS);
    const view = ok(await new GateClient(second.endpoints.gate).getJob('closing'));

    // Assess: the gate heard the completion long before the job's deadline would have made it ask.
    expect(ok(await regionOf(second).getJob('closing')).status).toBe('COMPLETED');
    expect(restartedAt + OUTBOX_RETRY_MS).toBeLessThan(T0 + TIMEOUT_SECONDS * 1_000);
    expect(view).toMatchObject({ status: 'COMPLETED', datacenters: { [REGION]: { status: 'completed' } } });
  }, 60_000);
});
