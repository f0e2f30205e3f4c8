import * as z from '../../validation/zod.js';
import { defineEvent } from '../event-contract.js';
import { attemptFields } from './pool-event-fields.js';

/**
 * Seed 003 TimeoutEvent::TimeoutResolved: `graceful` when the agent said `terminated` within the
 * grace period, `force` when the grace period ended first. `reason` says what stopped the attempt.
 */
export const TimeoutResolved = defineEvent('TimeoutResolved', 1, {
  ...attemptFields,
  resolution: z.enum(['graceful', 'force']),
  reason: z.enum(['timeout', 'stall', 'pool_stopped']),
  cleanup: z.optional(z.enum(['completed', 'failed'])),
  itemState: z.string(),
});
