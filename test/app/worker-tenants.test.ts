import { describe, expect, it, vi } from 'vitest';
import type { APIGatewayProxyEventV2 } from 'aws-lambda';
import { reportWorkerFailure } from '../../shared/app/report-worker-failure.js';
import { requestExtension } from '../../shared/app/request-extension.js';
import { submitJob } from '../../shared/app/submit-job.js';
import { InvalidRequestError, SubmissionConflictError } from '../../shared/domain/errors.js';
import { MAX_TENANT_LENGTH } from '../../shared/domain/tenant.js';
import { callerTenant } from '../../shared/http/caller-tenant.js';
import { extensionsOf, submit, tokenOf, useTestManager } from './support/test-manager.js';

const TENANT_X = 'arn:aws:iam::111111111111:role/team-x';
const TENANT_Y = 'arn:aws:iam::222222222222:role/team-y';
const job = (jobId: string, tenant: string) => ({
  jobId,
  tenant,
  timeoutSeconds: 300,
  workflows: [{ workflowId: 'wf-1', workerId: 'shared-name' }],
});

describe('a submitter can only reach the workers of its own tenant (dynalite)', () => {
  const m = useTestManager();

  it('tenant X naming tenant Y\'s worker id extends and fails only its own worker: Y\'s job and budget are untouched', async () => {
    // Prepare
    const x = await submit(m, job('job-x', TENANT_X));
    const y = await submit(m, job('job-y', TENANT_Y));
    // Act: X spends "shared-name"'s whole budget and then reports it failed
    for (const progress of [0.1, 0.2, 0.3, 0.4, 0.5]) {
      await requestExtension(m.deps, { workerId: 'shared-name', token: tokenOf(x, 'wf-1'), currentProgress: progress });
    }
    await reportWorkerFailure(m.deps, 'shared-name', TENANT_X);
    const yAsks = await requestExtension(m.deps, { workerId: 'shared-name', token: tokenOf(y, 'wf-1'), currentProgress: 0.1 });
    // Assess
    expect(yAsks).toMatchObject({ granted: true, extensionSeconds: 30, remainingExtensions: 4 });
    expect((await m.getJob('job-y')).tracking.totalExtensionsGranted).toBe(30);
    expect(await extensionsOf(m, 'job-y')).toEqual(new Map([['shared-name', 30]]));
    expect((await m.getJob('job-x')).tracking.totalExtensionsGranted).toBe(0);
  });

  it('another tenant resubmitting the same jobId and body gets a conflict, never the tokens', async () => {
    // Prepare
    await submitJob(m.deps, job('job-1', TENANT_X));
    // Act
    const again = submitJob(m.deps, job('job-1', TENANT_Y));
    // Assess
    await expect(again).rejects.toThrow(SubmissionConflictError);
  });

  it('a token of one tenant does not work for the same ids in another tenant', async () => {
    // Prepare
    const x = await submit(m, job('job-x', TENANT_X));
    const forged = tokenOf(x, 'wf-1').split('.').slice(0, 3).join('.');
    // Act
    const attempt = requestExtension(m.deps, { workerId: 'shared-name', token: forged, currentProgress: 0.1 });
    // Assess
    await expect(attempt).rejects.toThrow(/token/i);
  });
});

describe('the caller\'s tenant', () => {
  const event = (requestContext: Record<string, unknown>, headers: Record<string, string> = {}) =>
    ({ headers, requestContext }) as unknown as APIGatewayProxyEventV2;

  it('on AWS is the IAM principal, one tenant per role whatever the session; the header is ignored', () => {
    const assumed = event({ authorizer: { iam: { userArn: 'arn:aws:sts::111111111111:assumed-role/team-x/session-42' } } }, { 'x-vigil-tenant': 'other' });
    const user = event({ authorizer: { iam: { userArn: 'arn:aws:iam::111111111111:user/alice' } } });
    expect(callerTenant(assumed)).toBe('arn:aws:sts::111111111111:assumed-role/team-x');
    expect(callerTenant(user)).toBe('arn:aws:iam::111111111111:user/alice');
    const govCloud = event({ authorizer: { iam: { userArn: 'arn:aws-us-gov:sts::111111111111:assumed-role/team-x/session-7' } } });
    expect(callerTenant(govCloud)).toBe('arn:aws-us-gov:sts::111111111111:assumed-role/team-x');
  });

  it('takes the longest IAM principal ARN (a 512-character path, a 64-character name) and refuses a longer one with a 400, which no IAM principal has', () => {
    const longest = `arn:aws-us-gov:iam::111111111111:user/${'p'.repeat(510)}/${'n'.repeat(64)}`;
    expect(longest.length).toBeLessThanOrEqual(MAX_TENANT_LENGTH);
    expect(callerTenant(event({ authorizer: { iam: { userArn: longest } } }))).toBe(longest);
    const longer = `arn:aws:iam::111111111111:user/${'p'.repeat(MAX_TENANT_LENGTH)}`;
    expect(() => callerTenant(event({ authorizer: { iam: { userArn: longer } } }))).toThrow(InvalidRequestError);
  });

  it('locally is the x-vigil-tenant header, or the default tenant; a malformed header is a 400', () => {
    expect(callerTenant(event({}, { 'x-vigil-tenant': 'team-x' }))).toBe('team-x');
    expect(callerTenant(event({}))).toBe('default');
    expect(() => callerTenant(event({}, { 'x-vigil-tenant': 'a b' }))).toThrow(/x-vigil-tenant/);
  });

  it('on Lambda a call that reached a client route without the IAM authorizer is refused: the header never picks a tenant there', () => {
    vi.stubEnv('AWS_LAMBDA_FUNCTION_NAME', 'vigil-worker-url');
    try {
      expect(() => callerTenant(event({}, { 'x-vigil-tenant': 'team-x' }))).toThrow(/needs a SigV4-signed request/);
      expect(() => callerTenant(event({}))).toThrow(/needs a SigV4-signed request/);
    } finally {
      vi.unstubAllEnvs();
    }
  });
});
