import { createHmac, randomBytes, timingSafeEqual } from 'node:crypto';
import { InvalidTokenError } from '../domain/errors.js';
import type { Job } from '../domain/job.js';
import { DEFAULT_TENANT, scopedWorkerId } from '../domain/tenant.js';
import { keyRingOf, type KeySource, type SigningKeys } from './keys/key-ring-cache.js';
import { splitKeyId, type RingKey } from './keys/key-ring.js';

const encode = (value: string) => Buffer.from(value, 'utf8').toString('base64url');
/**
 * The text `encode` made `value` from, or `undefined` for any other spelling: base64url decoding
 * skips what it cannot read (padding, junk, the dropped bits of the last character), so only the
 * exact text a token was issued as is that token.
 */
const decodeExact = (value: string): string | undefined => {
  const text = Buffer.from(value, 'base64url').toString('utf8');
  return encode(text) === value ? text : undefined;
};

/** What a valid token proves: the job incarnation and workflow it was issued for, and whose worker holds it. */
export interface TokenClaim {
  jobId: string;
  workflowId: string;
  incarnation: string;
  /** The worker within its tenant: the key of its health, budget and index entries. */
  scopedWorkerId: string;
}

/** A fresh job incarnation: 72 random bits, base64url (never contains the token's `.` separator). */
export const newIncarnation = (): string => randomBytes(9).toString('base64url');

/**
 * Per-workflow worker credentials: `<job>.<workflow>.<incarnation>.<key id>~<HMAC(tenant, job, workflow, worker, incarnation)>`,
 * and for a tenant other than the default `.<tenant>` after it. The key id names the ring key that
 * signed it, so a token outlives rotations; a token without one was issued before rotation, under key `0`. Not tied to the fence token, so
 * workers keep working through a takeover; tied to the job's incarnation, so a token of an expired
 * job never acts on a new job with the same id. The ids ride in the token so the
 * extension call, which names only the worker, can still be checked, and the tenant so every worker
 * call knows whose worker it is without a read.
 */
export class WorkflowTokens {
  private readonly keys: SigningKeys | undefined;

  /** `keys` are absent in functions that are not granted them; they never issue or check tokens. */
  constructor(keys: KeySource | undefined) {
    this.keys = keyRingOf(keys);
  }

  sign(jobId: string, workflowId: string, workerId: string, incarnation: string, tenant?: string): string {
    const key = this.requireKeys().signingKey();
    const tenantPart = tenant !== undefined && tenant !== DEFAULT_TENANT ? `.${encode(tenant)}` : '';
    return `${encode(jobId)}.${encode(workflowId)}.${incarnation}.${key.id}~${mac(key, jobId, workflowId, workerId, incarnation, tenant)}${tenantPart}`;
  }

  /** Returns what the token was issued for; throws when it is not this worker's (or not for `expected`). */
  async verify(token: string, workerId: string, expected: { jobId?: string; workflowId?: string } = {}): Promise<TokenClaim> {
    const keys = this.requireKeys();
    const parts = partsOf(token);
    if (!parts) throw new InvalidTokenError();
    const { jobId, workflowId, incarnation, keyId, givenMacText, tenant } = parts;
    const key = await keys.find(keyId);
    if (!key) throw new InvalidTokenError();
    const expectedMac = Buffer.from(mac(key, jobId, workflowId, workerId, incarnation, tenant));
    const givenMac = Buffer.from(givenMacText);
    const matches = givenMac.length === expectedMac.length && timingSafeEqual(givenMac, expectedMac);
    if (!matches) throw new InvalidTokenError();
    if ((expected.jobId !== undefined && expected.jobId !== jobId) || (expected.workflowId !== undefined && expected.workflowId !== workflowId)) {
      throw new InvalidTokenError();
    }
    return { jobId, workflowId, incarnation, scopedWorkerId: scopedWorkerId(tenant, workerId) };
  }

  private requireKeys(): SigningKeys {
    if (!this.keys) throw new Error('This function has no workflow token secret (TOKEN_SECRET_ARN); it cannot sign or check tokens.');
    return this.keys;
  }
}

/** The parts of `<job>.<workflow>.<incarnation>.<key id>~<mac>[.<tenant>]` (no `<key id>~`: key `0`), or `undefined` for text of another shape. */
function partsOf(token: string) {
  const [jobPart, workflowPart, incarnation, signature, tenantPart, ...rest] = token.split('.');
  if (!jobPart || !workflowPart || !incarnation || !signature || tenantPart === '' || rest.length > 0) return undefined;
  const [keyId, givenMacText] = splitKeyId(signature, '~');
  if (!keyId || !givenMacText) return undefined;
  const jobId = decodeExact(jobPart);
  const workflowId = decodeExact(workflowPart);
  const tenant = tenantPart === undefined ? undefined : decodeExact(tenantPart);
  if (jobId === undefined || workflowId === undefined || (tenantPart !== undefined && tenant === undefined)) return undefined;
  return { jobId, workflowId, incarnation, keyId, givenMacText, tenant };
}

/** The id of the key a worker or attempt token names, or `undefined` for text that is no token. */
export const keyIdOfToken = (token: string): string | undefined => partsOf(token)?.keyId;

// The key id is not part of the MAC input: a token naming another key is checked under that key and fails.
function mac(key: RingKey, jobId: string, workflowId: string, workerId: string, incarnation: string, tenant: string | undefined): string {
  const input = `v3\n${tenant ?? DEFAULT_TENANT}\n${jobId}\n${workflowId}\n${workerId}\n${incarnation}`;
  return createHmac('sha256', Buffer.from(key.key, 'utf8')).update(input).digest('base64url');
}

/** A token of an earlier job with the same id is refused like any other foreign token. */
export function assertIssuedFor(claim: TokenClaim, job: Job): void {
  if (claim.incarnation !== job.incarnation) throw new InvalidTokenError();
}
