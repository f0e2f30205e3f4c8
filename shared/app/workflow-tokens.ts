import { createHmac, timingSafeEqual } from 'node:crypto';
import { InvalidTokenError } from '../domain/errors.js';
import { DEFAULT_TENANT, scopedWorkerId } from '../domain/tenant.js';

const encode = (value: string) => Buffer.from(value, 'utf8').toString('base64url');
const decode = (value: string) => Buffer.from(value, 'base64url').toString('utf8');

/**
 * Per-workflow worker credentials: `<job>.<workflow>.<HMAC(job, workflow, worker)>`, and for a
 * tenant other than the default `.<tenant>` with the tenant in the HMAC too. Not tied to the fence
 * token, so workers keep working through a takeover. The ids ride in the token so the extension
 * call, which names only the worker, can still be checked, and the tenant so every worker call knows
 * whose worker it is (finding 14) without a read.
 */
export class WorkflowTokens {
  /** `secret` is absent in functions that are not granted it; they never issue or check tokens. */
  constructor(private readonly secret: Buffer | undefined) {}

  sign(jobId: string, workflowId: string, workerId: string, tenant?: string): string {
    const scoped = tenant !== undefined && tenant !== DEFAULT_TENANT;
    return `${encode(jobId)}.${encode(workflowId)}.${this.mac(jobId, workflowId, workerId, tenant)}${scoped ? `.${encode(tenant)}` : ''}`;
  }

  /**
   * Returns the job, workflow and scoped worker id (the worker within its tenant) the token was issued
   * for; throws when it is not this worker's.
   */
  verify(token: string, workerId: string, expected: { jobId?: string; workflowId?: string } = {}) {
    const [jobPart, workflowPart, mac, tenantPart, ...extra] = token.split('.');
    if (!jobPart || !workflowPart || !mac || tenantPart === '' || extra.length > 0) throw new InvalidTokenError();
    const jobId = decode(jobPart);
    const workflowId = decode(workflowPart);
    const tenant = tenantPart === undefined ? undefined : decode(tenantPart);
    const expectedMac = Buffer.from(this.mac(jobId, workflowId, workerId, tenant));
    const givenMac = Buffer.from(mac);
    const matches = givenMac.length === expectedMac.length && timingSafeEqual(givenMac, expectedMac);
    if (!matches) throw new InvalidTokenError();
    if ((expected.jobId !== undefined && expected.jobId !== jobId) || (expected.workflowId !== undefined && expected.workflowId !== workflowId)) {
      throw new InvalidTokenError();
    }
    return { jobId, workflowId, scopedWorkerId: scopedWorkerId(tenant, workerId) };
  }

  private mac(jobId: string, workflowId: string, workerId: string, tenant: string | undefined): string {
    if (!this.secret) throw new Error('This function has no workflow token secret (TOKEN_SECRET_ARN); it cannot sign or check tokens.');
    const scoped = tenant !== undefined && tenant !== DEFAULT_TENANT;
    const input = scoped ? `v2\n${tenant}\n${jobId}\n${workflowId}\n${workerId}` : `v1\n${jobId}\n${workflowId}\n${workerId}`;
    return createHmac('sha256', this.secret).update(input).digest('base64url');
  }
}
