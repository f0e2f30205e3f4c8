import { ScanCommand } from '@aws-sdk/lib-dynamodb';
import { describe, expect, it } from 'vitest';
import { handler as submitJob } from '../../../functions/gate-api/submit-job.js';
import { errorOf, invoke } from '../support/http-events.js';
import { REGIONS } from '../support/test-regions.js';
import { useHttpTestGate } from '../support/use-http-test-gate.js';

describe('gate POST /jobs: a datacenter named "__proto__" is refused, not silently left out (a review finding: zod drops that record key unseen)', () => {
  const gate = useHttpTestGate();

  const everything = async () => {
    const { Items = [] } = await gate.dynamo.doc.send(new ScanCommand({ TableName: gate.gateTable, ConsistentRead: true }));
    return { gate: Items, regions: await Promise.all([...gate.managers.values()].map((m) => m.snapshot())) };
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
