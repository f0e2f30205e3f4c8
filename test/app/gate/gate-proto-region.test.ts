import { ScanCommand } from '@aws-sdk/lib-dynamodb';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { handler as submitJob } from '../../../functions/gate-api/submit-job.js';
import type { GateDeps } from '../../../shared/app/gate/gate-deps.js';
import { installGateResolver } from '../../../shared/wiring/gate-resolver.js';
import { startTestDynamo } from '../../support/dynalite.js';
import { T0 } from '../../support/fixtures.js';
import { errorOf, invoke } from '../support/http-events.js';
import { ManualClock } from '../support/recording-ports.js';
import { testManager, type TestDynamo, type TestManager } from '../support/test-manager.js';
import { testGateDeps } from '../support/test-gate-deps.js';
import { REGIONS, TestRegions } from '../support/test-regions.js';

describe('gate POST /jobs: a datacenter named "__proto__" is refused, not silently left out (a review finding: zod drops that record key unseen)', () => {
  let dynamo: TestDynamo;
  let managers: Map<string, TestManager>;
  let gateTable: string;
  let deps: GateDeps;
  beforeAll(async () => {
    dynamo = await startTestDynamo();
    installGateResolver(async () => deps);
  });
  afterAll(() => dynamo.close());
  beforeEach(async () => {
    managers = new Map();
    for (const region of REGIONS) managers.set(region, await testManager(dynamo));
    const clock = new ManualClock(T0);
    gateTable = await dynamo.table(false);
    deps = testGateDeps(dynamo, gateTable, new TestRegions(managers), clock);
  });

  const everything = async () => {
    const { Items = [] } = await dynamo.doc.send(new ScanCommand({ TableName: gateTable, ConsistentRead: true }));
    return { gate: Items, regions: await Promise.all([...managers.values()].map((m) => m.snapshot())) };
  };

  it('beside a real region: 400 naming datacenters.__proto__, and no job in the gate or any region', async () => {
    // Prepare: raw JSON, as a client sends it (JSON.parse makes "__proto__" an own key)
    const workflows = '[{"workflowId":"wf-1","workerId":"worker-a"}]';
    const body = `{"jobId":"job-p","timeoutSeconds":60,"datacenters":{"${REGIONS[0]}":{"workflows":${workflows}},"__proto__":{"workflows":${workflows}}}}`;
    // Act
    const answer = await invoke(submitJob, { method: 'POST', route: '/jobs', body });
    // Assess
    expect(answer.statusCode).toBe(400);
    const error = errorOf(answer);
    expect(error.code).toBe('invalid_request');
    expect(error.details?.map((d) => d.field)).toEqual(['datacenters.__proto__']);
    expect(error.message).toContain('datacenters.__proto__');
    expect(await everything()).toEqual({ gate: [], regions: REGIONS.map(() => []) });
  });

  it('alone: 400 naming it, not "name at least one region"', async () => {
    // Act
    const answer = await invoke(submitJob, {
      method: 'POST',
      route: '/jobs',
      body: '{"timeoutSeconds":60,"datacenters":{"__proto__":{"workflows":[{"workflowId":"wf-1","workerId":"worker-a"}]}}}',
    });
    // Assess
    expect(answer.statusCode).toBe(400);
    expect(errorOf(answer).details?.map((d) => d.field)).toEqual(['datacenters.__proto__']);
    expect(await everything()).toEqual({ gate: [], regions: REGIONS.map(() => []) });
  });
});
