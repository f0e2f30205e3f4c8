import './gate/quiet-logs.js';
import { spawn, type ChildProcess } from 'node:child_process';
import { createRequire } from 'node:module';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { systemScheduler } from '../../shared/adapters/local/system-scheduler.js';
import { VirtualClock } from '../../shared/adapters/local/virtual-clock.js';
import { DETECTION_BOUND_MS } from '../../shared/app/detection-bound.js';
import { useTempClouds } from './support/temp-clouds.js';
import { GateClient, tokenOf } from '../support/gate-client.js';
import { ok, VigilClient } from '../support/vigil-client.js';

const localRequire = createRequire(import.meta.url);
const DYNALITE_PATH = localRequire.resolve('dynalite');
const UPKEEP_PATH = localRequire.resolve('../../shared/adapters/local/dynalite-index-upkeep.cjs');

const { tempDir, start, close } = useTempClouds('vigil-restart-');
const children: ChildProcess[] = [];
const savedEnv = { ...process.env };

afterEach(() => {
  for (const child of children.splice(0)) if (child.exitCode === null && child.signalCode === null) child.kill('SIGKILL');
  for (const key of Object.keys(process.env)) if (!(key in savedEnv)) delete process.env[key];
});

const T0 = Date.parse('2030-01-01T00:00:00.000Z');

/**
 * A region's dynalite in a process of its own, on the region's data dir, that is `kill -9`ed right
 * after the first LevelDB write that removes an item's `timers` index entry (a wake-up moving). dynalite
 * used to write that delete, the new entry and the item as three LevelDB writes, so the kill landed
 * between them; they are now one batch (dynalite-index-upkeep.cjs), so it lands after the whole write.
 */
const CRASHING_DYNALITE = `
const path = require('node:path');
const { dynalitePath, upkeepPath, dataPath } = JSON.parse(process.env.CRASHING_DYNALITE);
require(upkeepPath).installIndexUpkeep(dynalitePath);
const db = require(path.join(path.dirname(dynalitePath), 'db'));
const upkeep = db.updateIndexes;
const movesAWakeUp = (write) => write.type === 'del' && write.key.includes('~timers~');
const killAfter = (done, moved) => (error) => { if (moved) process.kill(process.pid, 'SIGKILL'); else done(error); };
db.updateIndexes = function (store, table, existingItem, item, cb) {
  const level = store.db;
  if (!level.crashing) {
    level.crashing = true;
    const del = level.del.bind(level);
    const batch = level.batch.bind(level);
    level.del = (key, done) => del(key, killAfter(done, movesAWakeUp({ type: 'del', key })));
    level.batch = (writes, done) => batch(writes, killAfter(done, writes.some(movesAWakeUp)));
  }
  return upkeep(store, table, existingItem, item, cb);
};
const server = require(dynalitePath)({ path: dataPath, createTableMs: 0, deleteTableMs: 0, updateTableMs: 0 });
server.listen(0, '127.0.0.1', () => console.log('PORT ' + server.address().port));
`;

async function startCrashingDynalite(dataPath: string): Promise<{ endpoint: string; exited: Promise<NodeJS.Signals | null> }> {
  const child = spawn(process.execPath, ['-e', CRASHING_DYNALITE], {
    env: { ...process.env, CRASHING_DYNALITE: JSON.stringify({ dynalitePath: DYNALITE_PATH, upkeepPath: UPKEEP_PATH, dataPath }) },
    stdio: ['ignore', 'pipe', 'inherit'],
  });
  children.push(child);
  const exited = new Promise<NodeJS.Signals | null>((resolve) => child.once('exit', (_code, signal) => resolve(signal)));
  const port = await new Promise<number>((resolve, reject) => {
    let out = '';
    child.stdout?.on('data', (chunk: Buffer) => {
      out += chunk.toString();
      const match = /PORT (\d+)/.exec(out);
      if (match) resolve(Number(match[1]));
    });
    child.once('exit', () => reject(new Error(`crashing dynalite exited before listening: ${out}`)));
  });
  return { endpoint: `http://127.0.0.1:${port}`, exited };
}

// Restart review: a kill -9 of the local DynamoDB between its index writes and its item write left
// a RUNNING job with no `timers` index entry, so neither the restart re-arm nor the sweep woke it.
describe('kill -9 of the local DynamoDB in the middle of one write', () => {
  it("a job whose wake-up was being moved when the process died still times out after the restart (its wake-up is not lost)", async () => {
    const dataDir = tempDir();
    // Prepare: the region's DynamoDB is the crash-injecting dynalite on the region's own data dir
    // (the endpoint variable the local cloud honours), everything else the real local cloud.
    const crashing = await startCrashingDynalite(join(dataDir, 'dynamodb', 'us-east-1'));
    process.env['AWS_ENDPOINT_URL_DYNAMODB'] = crashing.endpoint;
    const clock = new VirtualClock(T0);
    const first = await start(dataDir, { clock });
    const region = new VigilClient(first.endpoints.regions['us-east-1'] ?? '');
    const submitted = ok(
      await region.submitJob({ jobId: 'job-1', timeoutSeconds: 600, stuckThresholdSeconds: 30, workflows: [{ workflowId: 'wf-1', workerId: 'worker-a' }] }),
    );
    await clock.advance(20_000);
    ok(await region.reportProgress('job-1', 'wf-1', { workerId: 'worker-a', progress: 0.5 }, submitted.workflows[0]?.token));
    // Act: the stuck check falls due (31.5 s: the threshold plus the coalescing slack); the job progressed, so it moves its wake-up later: the write
    // during which the DynamoDB process is killed.
    await clock.advance(15_000);
    expect(await crashing.exited, 'the injected kill -9 happened').toBe('SIGKILL');
    await close(first);
    delete process.env['AWS_ENDPOINT_URL_DYNAMODB'];

    // Act: restart on the same data dir (the local cloud's own dynalite) and let the job's deadline
    // and the detection bound pass.
    const restartedClock = new VirtualClock(clock.now());
    const second = await start(dataDir, { clock: restartedClock });
    const restarted = new VigilClient(second.endpoints.regions['us-east-1'] ?? '');
    const armedAtRestart = second.regions.get('us-east-1')?.timers.pending;
    const stored = ok(await restarted.getJob('job-1'));
    expect(stored.status, 'the job survived the crash as RUNNING').toBe('RUNNING');
    await restartedClock.advanceTo(T0 + 600_000 + DETECTION_BOUND_MS);

    // Assess: the job ended by its deadline plus the detection bound.
    const job = ok(await restarted.getJob('job-1'));
    expect(
      job.status,
      `job-1 is still ${job.status} ${DETECTION_BOUND_MS} ms past its deadline; wake-ups re-armed at restart: ${armedAtRestart}`,
    ).toBe('TIMED_OUT');
  }, 60_000);
});

// Restart review: the regions re-armed their stored wake-ups before the gate listened for events, so an
// overdue outbox retry published its JobFinalStatus to nobody, and the gate showed the region running.
describe('restart on the system clock: an overdue outbox retry fires while the gate is still starting', () => {
  it("a region's JobFinalStatus left in its outbox by a crash reaches the gate after the restart", async () => {
    const dataDir = tempDir();
    // Injected time: the wall clock, moved 10 minutes on while the cloud is down.
    let downtimeMs = 0;
    const clock = () => systemScheduler({ now: () => Date.now() + downtimeMs });
    const first = await start(dataDir, { clock: clock() });
    const gate = new GateClient(first.endpoints.gate);
    const submitted = ok(
      await gate.submitJob({ jobId: 'gate-job-1', timeoutSeconds: 3_600, stuckThresholdSeconds: 600, datacenters: { 'us-east-1': { workflows: [{ workflowId: 'wf-1', workerId: 'worker-a' }] } } }),
    );
    // Prepare: the process dies after the region's write that completes the job and before its
    // publish (the outbox keeps JobFinalStatus, with a retry wake-up 30 s on).
    const regionDeps = first.regions.get('us-east-1')?.deps as { bus: { publish(events: unknown[]): Promise<void> } };
    regionDeps.bus = {
      publish: async () => {
        throw new Error('kill -9 between the write and the publish');
      },
    };
    const region = new VigilClient(first.endpoints.regions['us-east-1'] ?? '');
    ok(await region.complete('gate-job-1', 'wf-1', { workerId: 'worker-a', outcome: 'completed' }, tokenOf(submitted, 'us-east-1', 'wf-1')));
    expect(ok(await region.getJob('gate-job-1')).status).toBe('COMPLETED');
    await close(first);

    // Act: start again 10 minutes later, on the same data dir.
    downtimeMs = 10 * 60_000;
    const second = await start(dataDir, { clock: clock() });
    const restartedGate = new GateClient(second.endpoints.gate);

    // Assess: the gate hears the region's final status (poll with a deadline; on time it takes ms).
    const giveUpAt = Date.now() + 8_000;
    let view = ok(await restartedGate.getJob('gate-job-1'));
    while (view.datacenters['us-east-1']?.status !== 'completed' && Date.now() < giveUpAt) {
      await new Promise((resolve) => setTimeout(resolve, 100));
      view = ok(await restartedGate.getJob('gate-job-1'));
    }
    const published = second.network.published.filter(({ event }) => event.detailType === 'JobFinalStatus').length;
    expect(
      view.datacenters['us-east-1']?.status,
      `JobFinalStatus published by the restarted region ${published} time(s), yet the gate still shows ${JSON.stringify(view.datacenters)}; region outbox now ${JSON.stringify((await second.regions.get('us-east-1')?.deps.jobs.getJob('gate-job-1'))?.outbox ?? [])}`,
    ).toBe('completed');
  }, 60_000);
});
