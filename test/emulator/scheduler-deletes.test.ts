import { DynamoDBClient } from '@aws-sdk/client-dynamodb';
import { ListSchedulesCommand, type SchedulerClient } from '@aws-sdk/client-scheduler';
import { DynamoDBDocumentClient } from '@aws-sdk/lib-dynamodb';
import { expect, it } from 'vitest';
import { DynamoGateStore } from '../../shared/adapters/aws/dynamo-gate-store.js';
import { ensureTable } from '../../shared/adapters/aws/jobs-table.js';
import { cancelGateJob } from '../../shared/app/gate/cancel-gate-job.js';
import { fireGateTimer } from '../../shared/app/gate/fire-gate-timer.js';
import type { GateDeps } from '../../shared/app/gate/gate-deps.js';
import { onManagerReport } from '../../shared/app/gate/on-manager-report.js';
import { submitGateJob } from '../../shared/app/gate/submit-gate-job.js';
import { defaultGatePolicy } from '../../shared/domain/gate/gate-policy.js';
import type { EpochMs } from '../../shared/domain/time.js';
import { JobFinalStatus } from '../../shared/events/job-final-status.js';
import type { RegionManagers } from '../../shared/ports/region-managers.js';
import { claim, newPool, send } from '../app/pools/pool-test-support.js';
import { RecordingBus, RecordingTelemetry } from '../app/support/recording-ports.js';
import { testGateCursors } from '../app/support/test-manager.js';
import { required, uniqueName } from '../support/aws-test-resources.js';
import { describeWithEmulator, type EmulatorClientConfig } from '../support/emulator.js';
import { managerOnEmulator } from './manager-fixture.js';
import { timerFixture, type TimerFixture } from './timer-test-setup.js';

const NOW = Date.UTC(2031, 0, 15, 10, 0, 0, 0);
const MINUTE = 60_000;
const REGIONS = ['us-east-1', 'eu-west-1'];

/** The name of every call the client sends, in order, but the test's own `ListSchedules`. */
function recordCalls(scheduler: SchedulerClient): string[] {
  const calls: string[] = [];
  scheduler.middlewareStack.add(
    (next, context) => (args) => {
      if (context.commandName !== 'ListSchedulesCommand') calls.push(context.commandName ?? 'unknown');
      return next(args);
    },
    { step: 'initialize', name: 'recordSchedulerCalls' },
  );
  return calls;
}

const count = (calls: readonly string[], name: string) => calls.filter((call) => call === name).length;

async function schedulesLeft(fixture: TimerFixture): Promise<string[]> {
  const listed = await fixture.scheduler.send(new ListSchedulesCommand({ GroupName: fixture.config.scheduleGroupName }));
  return (listed.Schedules ?? []).map((schedule) => schedule.Name ?? '');
}

/** Regions that accept every submission at fence token 1, their deadline counted from the gate's clock. */
const acceptingRegions = (clock: { now(): EpochMs }): RegionManagers => ({
  regions: REGIONS,
  submit: async (_region, submission) => ({
    outcome: 'accepted',
    body: { fenceToken: 1, deadlineAt: new Date(clock.now() + submission.timeoutSeconds * 1000).toISOString(), workflows: [] },
  }),
});

/** The gate's app on the emulator's DynamoDB, with the SQS + Scheduler timers. */
async function gateOnEmulator(clientConfig: EmulatorClientConfig): Promise<{ deps: GateDeps; timers: TimerFixture }> {
  const timers = await timerFixture(clientConfig, NOW);
  const dynamo = new DynamoDBClient(clientConfig);
  const tableName = uniqueName('vigil-gate');
  await ensureTable(dynamo, tableName, false);
  const doc = DynamoDBDocumentClient.from(dynamo, { marshallOptions: { removeUndefinedValues: true } });
  const deps: GateDeps = {
    gateRegion: 'us-east-1',
    gates: new DynamoGateStore(doc, tableName, () => timers.clock.now()),
    regions: acceptingRegions(timers.clock),
    timers: timers.timers,
    bus: new RecordingBus(),
    clock: timers.clock,
    policy: defaultGatePolicy,
    telemetry: new RecordingTelemetry(),
    cursors: testGateCursors(),
  };
  return { deps, timers };
}

const finalStatusFrom = (region: string, jobId: string, status: 'COMPLETED' | 'CANCELLED') => ({
  kind: 'JobFinalStatus' as const,
  detail: JobFinalStatus.parse(
    JobFinalStatus.build({ jobId, region, gateRegion: 'us-east-1', managerId: `${region}-manager`, status, timestamp: new Date(NOW).toISOString(), fenceToken: 1 }).detail,
  ),
});

const gateJobBody = (jobId: string, timeoutSeconds: number) => ({
  jobId,
  timeoutSeconds,
  datacenters: Object.fromEntries(REGIONS.map((region) => [region, { workflows: [{ workflowId: `wf-${region}`, workerId: `worker-${region}` }] }])),
});

// Review (AWS limits): DeleteSchedule has a rate quota of its own, and every finished pool item and gate job asked it.
describeWithEmulator('a finished pool item or gate job asks Scheduler to delete a schedule only if it may have one', (emulator) => {
  it('a pool of 5 items whose wake-ups were all within 15 minutes finishes without a single Scheduler call', async () => {
    // Prepare: the cost model's pool (10-minute agents, checkpoints every 2 minutes within 1), every item claimed
    const m = await managerOnEmulator(emulator.clientConfig(), NOW);
    const calls = recordCalls(m.scheduler);
    const itemIds = Array.from({ length: 5 }, (_, n) => `i-${n}`);
    await newPool(m.deps, { agent_timeout_secs: 600, checkpoint_interval_secs: 120, checkpoint_timeout_secs: 60 }, itemIds);
    const held = [];
    for (const itemId of itemIds) held.push(await claim(m.deps, `agent-${itemId}`));
    m.clock.set(NOW + MINUTE);
    // Act: every agent completes its item (the last one finishes the pool)
    for (const attempt of held) await send(m.deps, attempt, { type: 'complete', outcome: 'succeeded' });
    // Assess
    expect(required(await m.deps.pools.getPool('p'), 'no pool').status).toBe('COMPLETED');
    expect(calls).toEqual([]);
  });

  it("a pool with checkpoints 50 minutes apart deletes each item's schedule when it ends, though its last wake-ups were SQS messages", async () => {
    // Prepare: each claim's wake-up (the first checkpoint request, 50 minutes out) is a schedule; a 1-minute command then wakes the item sooner
    const m = await managerOnEmulator(emulator.clientConfig(), NOW);
    const calls = recordCalls(m.scheduler);
    const itemIds = ['i-1', 'i-2', 'i-3'];
    await newPool(m.deps, { agent_timeout_secs: 7_200, checkpoint_interval_secs: 3_000, timeout_config: { timeout_policy: 'hybrid', command_timeouts: { shell: 60 } } }, itemIds);
    const held = [];
    for (const itemId of itemIds) held.push(await claim(m.deps, `agent-${itemId}`));
    expect(await schedulesLeft(m)).toHaveLength(3);
    m.clock.set(NOW + 10_000);
    for (const attempt of held) await send(m.deps, attempt, { type: 'command_start', index: 0, commandType: 'shell' });
    // Act
    m.clock.set(NOW + 20_000);
    for (const attempt of held) await send(m.deps, attempt, { type: 'complete', outcome: 'succeeded' });
    // Assess
    expect({ created: count(calls, 'CreateScheduleCommand'), deleted: count(calls, 'DeleteScheduleCommand'), left: await schedulesLeft(m) }).toEqual({ created: 3, deleted: 3, left: [] });
  });

  it('a 5-minute gate job asks Scheduler nothing when it ends; a 2-hour one cancelled at once has its schedule deleted by the cancel itself', async () => {
    // Prepare
    const { deps, timers } = await gateOnEmulator(emulator.clientConfig());
    const calls = recordCalls(timers.scheduler);
    await submitGateJob(deps, gateJobBody('short', 300));
    await submitGateJob(deps, gateJobBody('long', 7_200));
    expect(await schedulesLeft(timers)).toHaveLength(1);
    timers.clock.set(NOW + 5_000);
    // Act: the cancel is a decision (the decision counter goes up), so the first wake-up's schedule is withdrawn at once
    await cancelGateJob(deps, 'long', 'operator');
    const atCancel = [...calls];
    const cancelled = required(await deps.gates.get('long'), 'no gate job');
    timers.clock.set(required(cancelled.timerDueAt, 'no re-send armed'));
    await fireGateTimer(deps, { scope: 'gate', jobId: 'long', fenceToken: cancelled.timeoutFenceToken, dueAt: required(cancelled.timerDueAt, 'no re-send armed') });
    // every region reports how the job ended there
    for (const region of REGIONS) await onManagerReport(deps, finalStatusFrom(region, 'short', 'COMPLETED'));
    for (const region of REGIONS) await onManagerReport(deps, finalStatusFrom(region, 'long', 'CANCELLED'));
    // Assess: the long job's schedule, made at its submit and deleted by its cancel; its 10 s re-sends and both ends ask nothing more
    expect(atCancel).toEqual(['CreateScheduleCommand', 'DeleteScheduleCommand']);
    expect({ calls, left: await schedulesLeft(timers) }).toEqual({ calls: ['CreateScheduleCommand', 'DeleteScheduleCommand'], left: [] });
  });
});
