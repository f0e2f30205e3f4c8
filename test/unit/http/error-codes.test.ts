import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { EventPublishError } from '../../../shared/adapters/aws/eventbridge-bus.js';
import { errorBodySchema } from '../../../shared/contract/error-body.js';
import { KeyRingCache } from '../../../shared/app/keys/key-ring-cache.js';
import { WorkflowTokens } from '../../../shared/app/workflow-tokens.js';
import { JobNotFoundError } from '../../../shared/domain/errors.js';
import { ClaimInFlightError } from '../../../shared/domain/pools/pool-errors.js';
import { errorResponse, statusByCode } from '../../../shared/http/error-response.js';
import { VersionConflictError } from '../../../shared/ports/job-store.js';
import { httpRoute } from '../../../shared/http/http-handler.js';
import { localContext } from '../../../shared/local/lambda-context.js';
import { httpEvent } from '../../app/support/http-events.js';

/** Every typed error code the server side declares (`readonly code = '…'`); the SDK's are the client's own. */
function declaredCodes(dir: string): string[] {
  return readdirSync(dir, { withFileTypes: true, recursive: true })
    .filter((entry) => entry.isFile() && entry.name.endsWith('.ts') && !join(entry.parentPath, entry.name).includes(join('shared', 'sdk')))
    .flatMap((entry) => [...readFileSync(join(entry.parentPath, entry.name), 'utf8').matchAll(/readonly code = '([a-z_]+)'/g)].map((match) => match[1] ?? ''));
}

// AWS adapters review (noticed): a code missing from the table answered 400, a caller's mistake, for
// what was the server's (an EventBridge publish that kept failing).
describe('error codes to HTTP', () => {
  it('every error code the server declares has its status in the one table', () => {
    const unmapped = [...new Set(declaredCodes(join(import.meta.dirname, '../../../shared')))].filter((code) => !(code in statusByCode));
    expect(unmapped).toEqual([]);
  });

  it('a busy answer asks for a retry in a second (Retry-After), a refusal that will not change names no wait', () => {
    // Act
    const lostRace = errorResponse(new VersionConflictError('JOB#job-1/JOB'));
    const claimInFlight = errorResponse(new ClaimInFlightError('claim-1'));
    const unknownJob = errorResponse(new JobNotFoundError('job-1'));
    // Assess
    expect([lostRace.statusCode, lostRace.headers]).toEqual([503, { 'Retry-After': '1' }]);
    expect([claimInFlight.statusCode, claimInFlight.headers]).toEqual([503, { 'Retry-After': '1' }]);
    expect([unknownJob.statusCode, unknownJob.headers]).toEqual([404, {}]);
  });

  it('a publish that kept failing is a 503 to retry, not the caller\'s 400', () => {
    expect(errorResponse(new EventPublishError('EventBridge refused 2 events')).statusCode).toBe(503);
  });

  it('a token under a key this container cannot read yet answers 503 keys_refreshing in the error body, with when to retry', async () => {
    // Prepare: a token under a rotated-in key made this container read its ring at 0, which failed; it comes again 10 s later
    const clock = { nowMs: 0 };
    const stale = new KeyRingCache({ keys: [{ id: 'k1', key: 'key-one-0123456789abcdef', createdAt: 1 }] }, () => Promise.reject(new Error('ThrottlingException')), () => clock.nowMs);
    const rotated = new KeyRingCache({ keys: [{ id: 'k2', key: 'key-two-0123456789abcdef', createdAt: 2 }] }, undefined, () => 0);
    const token = new WorkflowTokens(rotated).sign('job-1', 'wf-1', 'worker-a', 'inc-1');
    await new WorkflowTokens(stale).verify(token, 'worker-a').catch(() => undefined);
    clock.nowMs += 10_000;
    const route = httpRoute({}).handle(async () => ({ statusCode: 200, body: await new WorkflowTokens(stale).verify(token, 'worker-a') }));
    // Act
    const answer = await route(httpEvent({ method: 'POST', route: '/jobs/{jobId}/workflows/{workflowId}/progress', pathParameters: { jobId: 'job-1', workflowId: 'wf-1' } }), localContext('vigil-test', 'us-east-1'));
    // Assess
    expect(answer.statusCode).toBe(503);
    expect(answer.headers?.['Retry-After']).toBe('20');
    expect(errorBodySchema.parse(JSON.parse(answer.body ?? '')).error).toMatchObject({ code: 'keys_refreshing', message: expect.stringContaining('Retry in 20 s'), details: { retryAfterSeconds: 20 } });
  });
});
