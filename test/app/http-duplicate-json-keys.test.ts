import { describe, expect, it } from 'vitest';
import { handler as createPool } from '../../functions/pools/create-pool.js';
import { handler as submitJob } from '../../functions/api/submit-job.js';
import { errorOf, invoke } from './support/http-events.js';
import { useHttpTestManager } from './support/test-manager.js';

/**
 * JSON.parse keeps the last of two equal keys, so a body naming a field twice was accepted with the
 * first value dropped unsaid (YAML pools already refuse a repeated key).
 */
describe('a JSON body naming a field twice in one object is refused, not read as its last value', () => {
  const m = useHttpTestManager();

  it.each([
    ['at the top level', '{"jobId":"job-a","jobId":"job-b","timeoutSeconds":60,"workflows":[{"workflowId":"wf-1","workerId":"worker-a"}]}', 'jobId'],
    ['inside a workflow, one spelt with an escape', '{"jobId":"job-c","timeoutSeconds":60,"workflows":[{"workflowId":"wf-1","workerId":"worker-a","\\u0077orkerId":"worker-b"}]}', 'workerId'],
  ])('a job %s → 400 invalid_request naming the field, and no job is stored', async (_where, body, field) => {
    // Act
    const answer = await invoke(submitJob, { method: 'POST', route: '/jobs', body });
    // Assess
    expect(answer.statusCode, JSON.stringify(answer.body)).toBe(400);
    expect(errorOf(answer)).toMatchObject({ code: 'invalid_request', message: expect.stringContaining(`'${field}'`) });
    expect(await m.snapshot()).toEqual([]);
  });

  it('a pool whose item names input twice → 400, and no pool is stored', async () => {
    // Prepare
    const body = '{"poolId":"p-dup","items":[{"itemId":"i-1","input":{"task":"a"},"input":{"task":"b"}}]}';
    // Act
    const answer = await invoke(createPool, { method: 'POST', route: '/pools', body });
    // Assess
    expect(answer.statusCode, JSON.stringify(answer.body)).toBe(400);
    expect(errorOf(answer)).toMatchObject({ code: 'invalid_request', message: expect.stringContaining("'input'") });
    expect(await m.deps.pools.getPool('p-dup')).toBeUndefined();
  });

  it('equal keys in different objects, and a key equal to a string value, are ordinary', async () => {
    // Prepare
    const body = '{"jobId":"jobId","timeoutSeconds":60,"workflows":[{"workflowId":"wf-1","workerId":"worker-a"},{"workflowId":"wf-2","workerId":"workflowId"}]}';
    // Act
    const answer = await invoke(submitJob, { method: 'POST', route: '/jobs', body });
    // Assess
    expect(answer.statusCode, JSON.stringify(answer.body)).toBe(201);
  });
});
