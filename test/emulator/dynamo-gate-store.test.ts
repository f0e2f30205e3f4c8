import { DynamoDBClient } from '@aws-sdk/client-dynamodb';
import { DynamoDBDocumentClient } from '@aws-sdk/lib-dynamodb';
import { expect, it } from 'vitest';
import { DynamoGateStore } from '../../shared/adapters/aws/dynamo-gate-store.js';
import { ensureTable } from '../../shared/adapters/aws/jobs-table.js';
import { defaultGatePolicy } from '../../shared/domain/gate/gate-policy.js';
import { onGateTimerFired } from '../../shared/domain/gate/on-gate-timer-fired.js';
import { markRegionSubmitted } from '../../shared/domain/gate/region-submission.js';
import { startGateJob } from '../../shared/domain/gate/start-gate-job.js';
import { VersionConflictError } from '../../shared/ports/job-store.js';
import { required, uniqueName } from '../support/aws-test-resources.js';
import { describeWithEmulator, type EmulatorClientConfig } from '../support/emulator.js';

const T0 = Date.UTC(2031, 0, 15, 10, 0, 0, 0);

/** The gate's store on an AWS API emulator, its own table definition. */
async function freshStore(clientConfig: EmulatorClientConfig): Promise<DynamoGateStore> {
  const client = new DynamoDBClient(clientConfig);
  const tableName = uniqueName('vigil-gate');
  await ensureTable(client, tableName, false);
  return new DynamoGateStore(DynamoDBDocumentClient.from(client, { marshallOptions: { removeUndefinedValues: true } }), tableName, () => T0);
}

const gateJob = (jobId: string, timeoutSeconds = 300) => {
  let job = startGateJob({ jobId, timeoutSeconds, datacenters: { 'us-east-1': { workflows: [] }, 'eu-west-1': { workflows: [] } } }, `digest-${jobId}`, T0).state;
  for (const region of ['us-east-1', 'eu-west-1']) job = markRegionSubmitted(job, region, 1).state;
  return job;
};

describeWithEmulator('DynamoDB gate store: conditional writes', (emulator) => {
  it('creates a gate job once; a second create answers the stored one', async () => {
    // Prepare
    const store = await freshStore(emulator.clientConfig());

    // Act
    const created = await store.create(gateJob('gate:create'));
    const again = await store.create(gateJob('gate:create', 9_999));

    // Assess
    expect(created).toEqual({ created: true, job: { ...gateJob('gate:create'), version: 1 } });
    expect(again).toEqual({ created: false, existing: { ...gateJob('gate:create'), version: 1 } });
  });

  it('writes only on the version it read: the loser of two deciders gets VersionConflictError and changes nothing', async () => {
    // Prepare
    const store = await freshStore(emulator.clientConfig());
    await store.create(gateJob('gate-race'));
    const read = required(await store.get('gate-race'), 'not created');
    // Its regions never reported: the gate waits one grace for their reports, then declares.
    const waiting = onGateTimerFired(read, { fenceToken: read.timeoutFenceToken }, read.timerDueAt ?? 0, defaultGatePolicy).state;
    const declared = onGateTimerFired(waiting, { fenceToken: read.timeoutFenceToken }, waiting.timerDueAt ?? 0, defaultGatePolicy).state;

    // Act
    const winner = await store.save(declared, read.version);
    const loser = store.save({ ...read, cancelRequested: { reason: 'late' } }, read.version);

    // Assess
    await expect(loser).rejects.toBeInstanceOf(VersionConflictError);
    expect(await store.get('gate-race')).toEqual(winner);
    expect(winner).toMatchObject({ version: 2, globallyTimedOut: true });
  });

  it("a due wake-up is found through the sparse index with the job's decision counter; a job without one is not", async () => {
    // Prepare
    const store = await freshStore(emulator.clientConfig());
    const due = await store.create(gateJob('gate-due', 60));
    await store.create(gateJob('gate-later', 6_000));
    const read = required(due.created ? due.job : undefined, 'not created');

    // Act: due at the global deadline plus the grace for extension reports in flight
    const dueAt = T0 + (60 + defaultGatePolicy.extensionReportGraceSeconds) * 1_000;
    const found = await store.findDueTimers(dueAt + 1_000, 100);

    // Assess
    expect(found).toEqual([{ scope: 'gate', jobId: 'gate-due', fenceToken: read.timeoutFenceToken, dueAt }]);
  });
});
