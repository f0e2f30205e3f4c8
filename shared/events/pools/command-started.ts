import * as z from '../../validation/zod.js';
import { count, defineEvent, nonNegative } from '../event-contract.js';
import { attemptFields } from './pool-event-fields.js';

/** Seed 003 TimeoutEvent::CommandStarted; `timeoutSeconds` is null when the policy sets no command deadline. */
export const CommandStarted = defineEvent('CommandStarted', 1, {
  ...attemptFields,
  commandIndex: count(),
  commandType: z.string(),
  timeoutSeconds: z.nullable(nonNegative()),
});
