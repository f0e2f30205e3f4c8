import * as z from '../../validation/zod.js';
import { count, defineEvent, nonNegative } from '../event-contract.js';
import { attemptFields } from './pool-event-fields.js';

/** Seed 003 TimeoutEvent::CommandCompleted. */
export const CommandCompleted = defineEvent('CommandCompleted', 1, {
  ...attemptFields,
  commandIndex: count(),
  commandType: z.string(),
  outcome: z.enum(['succeeded', 'failed']),
  durationSeconds: nonNegative(),
});
