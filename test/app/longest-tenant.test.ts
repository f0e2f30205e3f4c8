import { describe, expect, it } from 'vitest';
import { handler as submitFromGate } from '../../functions/internal/submit-from-gate.js';
import { reportProgress } from '../../shared/app/report-progress.js';
import { reportWorkerFailure } from '../../shared/app/report-worker-failure.js';
import { requestExtension } from '../../shared/app/request-extension.js';
import { MAX_TENANT_LENGTH } from '../../shared/domain/tenant.js';
import { callerTenant } from '../../shared/http/caller-tenant.js';
import { localContext } from '../../shared/local/lambda-context.js';
import { GATE_REGION, REGION } from '../support/fixtures.js';
import { httpEvent } from './support/http-events.js';
import { submit, tokenOf, useHttpTestManager } from './support/test-manager.js';

/** The longest IAM principal ARN: a user with a 512-character path and a 64-character name, in the longest partition name. */
const LONGEST_ARN = `arn:aws-us-gov:iam::123456789012:user/${'team/'.repeat(102)}/${'u'.repeat(64)}`;
const WORKER = 'w'.repeat(128);

describe('the longest IAM principal is a tenant like any other (a review finding: the gate’s fan-out refused tenants over 256 characters) (dynalite)', () => {
  const m = useHttpTestManager();

  it('its gate job reaches the region: the fan-out takes the tenant exactly as the gate derives it from the caller', async () => {
    // Prepare
    const tenant = callerTenant(httpEvent({ method: 'POST', route: '/jobs', iamUserArn: LONGEST_ARN }));
    expect(tenant.length).toBe(613);
    expect(tenant.length).toBeLessThanOrEqual(MAX_TENANT_LENGTH);
    const submission = { jobId: 'job-1', timeoutSeconds: 60, gateRegion: GATE_REGION, workflows: [{ workflowId: 'wf-1', workerId: WORKER }], tenant };
    // Act
    const answer = await submitFromGate({ region: REGION, submission }, localContext('vigil-test', REGION));
    // Assess
    expect(answer.statusCode, JSON.stringify(answer.body)).toBe(201);
    expect((await m.getJob('job-1')).tenant).toBe(tenant);
  });

  it('its 128-character worker reports, is granted an extension and is reported failed: every item keyed by the tenant-scoped worker id fits DynamoDB’s key limits', async () => {
    // Prepare
    const job = await submit(m, { jobId: 'job-2', tenant: LONGEST_ARN, timeoutSeconds: 300, workflows: [{ workflowId: 'wf-1', workerId: WORKER }] });
    const token = tokenOf(job, 'wf-1');
    // Act
    await reportProgress(m.deps, { jobId: 'job-2', workflowId: 'wf-1', workerId: WORKER, progress: 0.1, token });
    const asked = await requestExtension(m.deps, { workerId: WORKER, token, currentProgress: 0.2 });
    await reportWorkerFailure(m.deps, WORKER, LONGEST_ARN);
    // Assess
    expect(asked).toMatchObject({ granted: true, extensionSeconds: 30 });
    expect((await m.getJob('job-2')).tracking.totalExtensionsGranted).toBe(0);
  });
});
