import { MissingTokenError, type TokenHolder } from '../domain/errors.js';

/** Worker calls carry the workflow's token in `x-vigil-token`, agent calls their attempt's. */
export function workerToken(headers: Record<string, string | undefined>, holder: TokenHolder = 'workflow'): string {
  const token = headers['x-vigil-token'];
  if (!token) throw new MissingTokenError(holder);
  return token;
}
