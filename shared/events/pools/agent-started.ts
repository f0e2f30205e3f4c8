import * as z from '../../validation/zod.js';
import { defineEvent, nonNegative } from '../event-contract.js';
import { attemptFields } from './pool-event-fields.js';

/** Seed 003 TimeoutEvent::AgentStarted: an agent claimed an item (a new attempt). */
export const AgentStarted = defineEvent('AgentStarted', 1, {
  ...attemptFields,
  kind: z.enum(['agent', 'expert']),
  timeoutSeconds: z.nullable(nonNegative()),
});
