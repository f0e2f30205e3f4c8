import { ScanCommand } from '@aws-sdk/lib-dynamodb';
import { describe, expect, it } from 'vitest';
import { handler as submitJob } from '../../../functions/gate-api/submit-job.js';
import { MAX_NAMED_PROBLEMS } from '../../../shared/contract/bounded-problems.js';
import { MAX_BODY_BYTES } from '../../../shared/http/read-request-body.js';
import { localContext } from '../../../shared/local/lambda-context.js';
import { REGION } from '../../support/fixtures.js';
import { httpEvent } from '../support/http-events.js';
import { REGIONS } from '../support/test-regions.js';
import { useHttpTestGate } from '../support/use-http-test-gate.js';

/** Lambda's synchronous answer (the proxy envelope API Gateway receives) is at most 6 MB. */
const LAMBDA_ANSWER_LIMIT = 6 * 1024 * 1024;
const workflows = [{ workflowId: 'wf-1', workerId: 'worker-a' }];

describe('gate POST /jobs: an unknown region is refused with a small 400 whatever its name (a review finding: the refusal repeated every unknown name whole, and a 6 MB body of them answered past Lambda’s 6 MB, a 502 instead of the 400)', () => {
  const gate = useHttpTestGate();

  const everything = async () => {
    const { Items = [] } = await gate.dynamo.doc.send(new ScanCommand({ TableName: gate.gateTable, ConsistentRead: true }));
    return { gate: Items, regions: await Promise.all([...gate.managers.values()].map((m) => m.snapshot())) };
  };

  /** The answer as the Lambda proxy envelope carries it to API Gateway (the body an escaped string inside it). */
  async function answerTo(body: string) {
    expect(Buffer.byteLength(body)).toBeLessThanOrEqual(MAX_BODY_BYTES);
    const result = await submitJob(httpEvent({ method: 'POST', route: '/jobs', body }), localContext('vigil-test', REGION));
    const envelopeBytes = Buffer.byteLength(JSON.stringify(result));
    const error = (JSON.parse(String(result.body)) as { error: { code: string; message: string; details?: Array<{ field: string }> } }).error;
    return { statusCode: result.statusCode, envelopeBytes, error };
  }

  it('one region name of ~5.5 MB of quotes (each doubles in the answer, and again in the envelope): a 400 of a few KB, nothing stored', async () => {
    // Prepare: a name of 2.7 million '"', 5.4 MB as JSON, beside a real region
    const name = '"'.repeat(2_700_000);
    const body = JSON.stringify({ jobId: 'job-q', timeoutSeconds: 60, datacenters: { [REGIONS[0]]: { workflows }, [name]: { workflows } } });
    // Act
    const { statusCode, envelopeBytes, error } = await answerTo(body);
    // Assess
    expect(envelopeBytes, `a ${(envelopeBytes / 1024 / 1024).toFixed(1)} MB answer`).toBeLessThan(64 * 1024);
    expect(envelopeBytes).toBeLessThan(LAMBDA_ANSWER_LIMIT);
    expect(statusCode).toBe(400);
    expect(error.message).toMatch(/at most 64 characters/);
    expect(await everything()).toEqual({ gate: [], regions: REGIONS.map(() => []) });
  });

  it('30,000 unknown region names of 64 quotes each: a 400 naming the first fifty and counting the rest, nothing stored', async () => {
    // Prepare: each name is 128 bytes as JSON and distinct in its last characters
    const names = Array.from({ length: 30_000 }, (_, i) => `${i.toString(36)}`.padStart(64, '"'));
    const body = JSON.stringify({ jobId: 'job-n', timeoutSeconds: 60, datacenters: Object.fromEntries(names.map((name) => [name, { workflows }])) });
    // Act
    const { statusCode, envelopeBytes, error } = await answerTo(body);
    // Assess
    expect(envelopeBytes, `a ${(envelopeBytes / 1024 / 1024).toFixed(1)} MB answer`).toBeLessThan(64 * 1024);
    expect(statusCode).toBe(400);
    expect(error.code).toBe('unknown_region');
    expect(error.message).toContain(names[0]);
    expect(error.message).toContain(names[MAX_NAMED_PROBLEMS - 1]);
    expect(error.message).not.toContain(names[MAX_NAMED_PROBLEMS]);
    expect(error.message).toContain(`and ${names.length - MAX_NAMED_PROBLEMS} more`);
    for (const region of REGIONS) expect(error.message).toContain(region);
    expect(await everything()).toEqual({ gate: [], regions: REGIONS.map(() => []) });
  });
});
