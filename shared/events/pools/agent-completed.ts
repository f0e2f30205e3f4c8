import * as z from '../../validation/zod.js';
import { defineEvent, nonNegative } from '../event-contract.js';
import { attemptFields } from './pool-event-fields.js';

/** Seed 003 TimeoutEvent::AgentCompleted: the attempt reported its outcome in time. */
export const AgentCompleted = defineEvent('AgentCompleted', 1, {
  ...attemptFields,
  outcome: z.enum(['succeeded', 'failed']),
  durationSeconds: nonNegative(),
});
