import * as z from '../../validation/zod.js';
import { defineEvent, isoTime } from '../event-contract.js';
import { poolId } from './pool-event-fields.js';

/** A pool reached COMPLETED, FAILED or CANCELLED. */
export const PoolFinished = defineEvent('PoolFinished', 1, {
  poolId,
  status: z.enum(['COMPLETED', 'FAILED', 'CANCELLED']),
  reason: z.optional(z.string()),
  finishedAt: isoTime,
});
