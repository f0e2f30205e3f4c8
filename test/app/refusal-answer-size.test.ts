import { describe, expect, it } from 'vitest';
import { handler as submitJob } from '../../functions/api/submit-job.js';
import { MAX_NAMED_PROBLEMS, MAX_PROBLEM_TEXT } from '../../shared/contract/bounded-problems.js';
import { parsePoolSubmission } from '../../shared/contract/parse-pool-submission.js';
import { errorResponse } from '../../shared/http/error-response.js';
import { localContext } from '../../shared/local/lambda-context.js';
import { REGION } from '../support/fixtures.js';
import { httpEvent } from './support/http-events.js';
import { useHttpTestManager } from './support/test-manager.js';

const LAMBDA_ANSWER_LIMIT = 6 * 1024 * 1024;
const unknownKeys = (count: number) => Object.fromEntries(Array.from({ length: count }, (_, i) => [`k${i.toString(36)}`, 0]));

describe('a refusal stays a small 400 whatever the refused body holds (a review finding: 100,000 unknown keys made a 9 MB answer, past Lambda’s 6 MB)', () => {
  const m = useHttpTestManager();

  it('POST /jobs with ~1 MB of unknown keys: a 400 naming the first fifty and counting the rest, nothing stored', async () => {
    // Prepare: a body well below the 6 MB request limit; each unknown key costs ~9 bytes
    const body = JSON.stringify({ timeoutSeconds: 60, workflows: [{ workflowId: 'wf-1', workerId: 'worker-a' }], ...unknownKeys(100_000) });
    expect(Buffer.byteLength(body)).toBeLessThan(1_100_000);
    // Act
    const result = await submitJob(httpEvent({ method: 'POST', route: '/jobs', body }), localContext('vigil-test', REGION));
    // Assess: the refusal, as the Lambda proxy answer API Gateway would receive
    expect(result.statusCode).toBe(400);
    expect(Buffer.byteLength(JSON.stringify(result))).toBeLessThan(64 * 1024);
    const { error } = JSON.parse(String(result.body)) as { error: { code: string; message: string; details: Array<{ field: string; message: string }> } };
    expect(error.code).toBe('invalid_request');
    expect(error.details).toHaveLength(MAX_NAMED_PROBLEMS);
    expect(error.details[0]).toEqual({ field: 'k0', message: 'is not a field of this request; remove it' });
    expect(error.message).toContain(`k0: is not a field of this request; remove it`);
    expect(error.message).toContain(`and ${100_000 - MAX_NAMED_PROBLEMS} more like these. Fix these fields and resend.`);
    expect(await m.snapshot()).toEqual([]);
  });

  it('a single unknown key of 1 MB is named clipped, not whole', () => {
    // Act
    const refused = (() => {
      try {
        parsePoolSubmission(JSON.stringify({ items: [{ itemId: 'a', input: {} }], config: { ['x'.repeat(1_000_000)]: 1 } }), 'application/json');
      } catch (error) {
        return errorResponse(error);
      }
      throw new Error('the pool was accepted');
    })();
    // Assess
    expect(refused.statusCode).toBe(400);
    expect(Buffer.byteLength(JSON.stringify(refused.body))).toBeLessThan(4 * MAX_PROBLEM_TEXT);
    expect(JSON.stringify(refused.body)).toContain('config.xxx');
  });

  it('POST /pools with ~1 MB of unknown config keys answers within Lambda’s limit, the first fifty named with the one detail shape', () => {
    // Act
    const refused = (() => {
      try {
        parsePoolSubmission(JSON.stringify({ items: [{ itemId: 'a', input: {} }], config: unknownKeys(100_000) }), 'application/json');
      } catch (error) {
        return errorResponse(error);
      }
      throw new Error('the pool was accepted');
    })();
    // Assess
    expect(refused.statusCode).toBe(400);
    const size = Buffer.byteLength(JSON.stringify(refused.body));
    expect(size, `a ${(size / 1024 / 1024).toFixed(1)} MB answer`).toBeLessThan(LAMBDA_ANSWER_LIMIT / 100);
    const details = (refused.body.error as { details?: unknown[] }).details;
    expect(details).toHaveLength(MAX_NAMED_PROBLEMS);
    expect(details?.[0]).toEqual({ field: 'config.k0', message: 'is not a known field; remove it or check its spelling' });
  });
});
