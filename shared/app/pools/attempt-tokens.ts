import type { WorkflowTokens } from '../workflow-tokens.js';

/**
 * An attempt's credential: the worker-token HMAC bound to pool, item and attempt. `pool/` and
 * `attempt/` cannot occur in job, workflow or worker ids, so no job token can pass for an attempt's.
 */
export const attemptTokens = (tokens: WorkflowTokens) => ({
  sign: (poolId: string, itemId: string, attempt: number): string => tokens.sign(`pool/${poolId}`, itemId, `attempt/${attempt}`),
  /** Throws InvalidTokenError unless the token was issued for exactly this pool, item and attempt. */
  verify: (token: string, poolId: string, itemId: string, attempt: number): void => {
    tokens.verify(token, `attempt/${attempt}`, { jobId: `pool/${poolId}`, workflowId: itemId });
  },
});
