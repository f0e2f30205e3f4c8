/**
 * Trust model: worker identities belong to a tenant, the principal that submitted the
 * job. Worker `w` of tenant T and worker `w` of tenant U are different workers: their own health,
 * budget and jobs, so a submitter can never spend or extend another tenant's worker. Jobs of the
 * default tenant (the local cloud without a tenant header, and every job from before tenants) keep
 * the plain worker id as their key.
 */
export const DEFAULT_TENANT = 'default';

/**
 * The longest tenant taken. On AWS a tenant is the caller's IAM principal ARN, and the longest is
 * 613 characters (a user with IAM's 512-character path and 64-character name, in the longest
 * partition name). Within this, a scoped worker id keeps a grant's sort key
 * (`GRANT#` + tenant + `|` + a 128-character worker id) under DynamoDB's 1,024 bytes.
 */
export const MAX_TENANT_LENGTH = 640;

/** `|` is outside the id alphabet, so a scoped id never equals a plain worker id. */
const SEPARATOR = '|';

/** The id of a worker within its tenant: the key of its items (health, budget, the `byWorker` index). */
export const scopedWorkerId = (tenant: string | undefined, workerId: string): string =>
  tenant === undefined || tenant === DEFAULT_TENANT ? workerId : `${tenant}${SEPARATOR}${workerId}`;

/** The worker id a scoped id names, as the submission spelled it. */
export const plainWorkerId = (scoped: string): string => scoped.slice(scoped.lastIndexOf(SEPARATOR) + 1);

/** A stored job, gate job or listing row: `tenant` is absent for the default tenant. */
export interface TenantOwned {
  tenant?: string;
}

/** How a tenant is stored: absent for the default tenant, so items from before tenants read the same. */
export const storedTenant = (tenant: string | undefined): { tenant?: string } =>
  tenant === undefined || tenant === DEFAULT_TENANT ? {} : { tenant };

/**
 * A client may read and act only on its own tenant's jobs. Items written before tenants have no
 * `tenant`: they belong to the default tenant.
 */
export const ownedBy = (resource: TenantOwned, tenant: string): boolean => (resource.tenant ?? DEFAULT_TENANT) === tenant;
