import { MissingTokenError } from '../domain/errors.js';

/** Worker calls carry the workflow's token in `x-vigil-token`. */
export function workerToken(headers: Record<string, string | undefined>): string {
  const token = headers['x-vigil-token'];
  if (!token) throw new MissingTokenError();
  return token;
}
