import * as z from '../../validation/zod.js';
import { count, isoTime, nonNegative } from '../event-contract.js';

/** Pool and item ids are 1–128 characters (contract). */
export const poolId = z.string().check(z.minLength(1), z.maxLength(128));
export const itemId = poolId;

/** What every event about one attempt carries: the attempt is its fence. */
export const attemptFields = {
  poolId,
  itemId,
  attempt: count(),
  agentId: z.string(),
  at: isoTime,
};

export const timeoutFields = {
  timeoutType: z.enum(['agent', 'command']),
  commandIndex: z.optional(count()),
  commandType: z.optional(z.string()),
  limitSeconds: nonNegative(),
  elapsedSeconds: nonNegative(),
};
