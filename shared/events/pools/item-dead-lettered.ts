import * as z from '../../validation/zod.js';
import { count, defineEvent, isoTime } from '../event-contract.js';
import { itemId, poolId, timeoutFields } from './pool-event-fields.js';

/** Seed 003's DLQ integration: the item is in the pool's DLQ, with its timeout. */
export const ItemDeadLettered = defineEvent('ItemDeadLettered', 1, {
  poolId,
  itemId,
  attempt: count(),
  timeoutCount: count(),
  at: isoTime,
  timeout: z.optional(z.object(timeoutFields)),
});
