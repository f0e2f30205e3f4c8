import * as z from '../../validation/zod.js';
import { count, defineEvent, isoTime } from '../event-contract.js';
import { itemId, poolId } from './pool-event-fields.js';

/** Seed 002 `task_repeated_timeout` (and repeated stalls): a question for a human; route it to a pager or a chat. */
export const TaskEscalated = defineEvent('TaskEscalated', 1, {
  poolId,
  itemId,
  escalationId: z.string(),
  timeoutCount: count(),
  /** Present when repeated stalls (missed checkpoints), not timeouts, escalated the item. */
  stallCount: z.optional(count()),
  /** Present when repeated give-backs (agents that stopped on their own, unasked) escalated the item. */
  returnCount: z.optional(count()),
  question: z.string(),
  options: z.array(z.string()),
  askedAt: isoTime,
});
