import type { Decision } from '../domain/effects.js';
import { JobNotFoundError } from '../domain/errors.js';
import { ownedBy, type TenantOwned } from '../domain/tenant.js';

/**
 * The job if the caller's tenant owns it. Another tenant's job answers exactly as a missing one
 * (404, same body), so a client learns nothing of it beyond what submit's 409 already says.
 */
export function ownJob<Resource extends TenantOwned>(resource: Resource | undefined, tenant: string, jobId: string): Resource {
  if (!resource || !ownedBy(resource, tenant)) throw new JobNotFoundError(jobId);
  return resource;
}

/**
 * A decision only on the caller's own job, checked on the very state the conditional write is based
 * on: a job id reused by another tenant after the read cannot slip between the check and the write.
 */
export const onOwnJob =
  <State extends TenantOwned>(tenant: string, jobId: string, decide: (state: State) => Decision<State>) =>
  (state: State): Decision<State> =>
    decide(ownJob(state, tenant, jobId));
