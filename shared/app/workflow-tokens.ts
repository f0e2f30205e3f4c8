import { createHmac, timingSafeEqual } from 'node:crypto';
import { InvalidTokenError } from '../domain/errors.js';

const encode = (value: string) => Buffer.from(value, 'utf8').toString('base64url');
const decode = (value: string) => Buffer.from(value, 'base64url').toString('utf8');

/**
 * Per-workflow worker credentials: `<job>.<workflow>.<HMAC(job, workflow, worker)>`. Not tied to
 * the fence token, so workers keep working through a takeover. The ids ride in the token so the
 * extension call, which names only the worker, can still be checked.
 */
export class WorkflowTokens {
  /** `secret` is absent in functions that are not granted it; they never issue or check tokens. */
  constructor(private readonly secret: Buffer | undefined) {}

  sign(jobId: string, workflowId: string, workerId: string): string {
    return `${encode(jobId)}.${encode(workflowId)}.${this.mac(jobId, workflowId, workerId)}`;
  }

  /** Returns the job and workflow the token was issued for; throws when it is not this worker's. */
  verify(token: string, workerId: string, expected: { jobId?: string; workflowId?: string } = {}) {
    const [jobPart, workflowPart, mac] = token.split('.');
    if (!jobPart || !workflowPart || !mac) throw new InvalidTokenError();
    const jobId = decode(jobPart);
    const workflowId = decode(workflowPart);
    const expectedMac = Buffer.from(this.mac(jobId, workflowId, workerId));
    const givenMac = Buffer.from(mac);
    const matches = givenMac.length === expectedMac.length && timingSafeEqual(givenMac, expectedMac);
    if (!matches) throw new InvalidTokenError();
    if ((expected.jobId !== undefined && expected.jobId !== jobId) || (expected.workflowId !== undefined && expected.workflowId !== workflowId)) {
      throw new InvalidTokenError();
    }
    return { jobId, workflowId };
  }

  private mac(jobId: string, workflowId: string, workerId: string): string {
    if (!this.secret) throw new Error('This function has no workflow token secret (TOKEN_SECRET_ARN); it cannot sign or check tokens.');
    return createHmac('sha256', this.secret).update(`v1\n${jobId}\n${workflowId}\n${workerId}`).digest('base64url');
  }
}
