import { InvalidTokenError } from '../../domain/errors.js';
import type { WorkflowTokens } from '../workflow-tokens.js';

/** The attempt rides in the token's incarnation part too (no `.` in it). */
const incarnationOf = (attempt: number) => `a${attempt}`;

/**
 * An attempt's credential: the worker-token HMAC bound to pool, item and attempt. `pool/` and
 * `attempt/` cannot occur in job, workflow or worker ids, so no job token can pass for an attempt's.
 */
export const attemptTokens = (tokens: WorkflowTokens) => ({
  sign: (poolId: string, itemId: string, attempt: number): string =>
    tokens.sign(`pool/${poolId}`, itemId, `attempt/${attempt}`, incarnationOf(attempt)),
  /** Throws InvalidTokenError unless the token was issued for exactly this pool, item and attempt. */
  verify: async (token: string, poolId: string, itemId: string, attempt: number): Promise<void> => {
    let incarnation: string;
    try {
      incarnation = (await tokens.verify(token, `attempt/${attempt}`, { jobId: `pool/${poolId}`, workflowId: itemId })).incarnation;
    } catch (error) {
      throw error instanceof InvalidTokenError ? new InvalidTokenError('attempt') : error;
    }
    if (incarnation !== incarnationOf(attempt)) throw new InvalidTokenError('attempt');
  },
});
