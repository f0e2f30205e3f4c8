import * as z from '../../validation/zod.js';
import { defineEvent, isoTime } from '../event-contract.js';
import { attemptFields, timeoutFields } from './pool-event-fields.js';

/**
 * Seed 003 TimeoutEvent::TimeoutOccurred (seed 002's `agent_timeout`): the push side of "stop" for
 * users who stop ECS tasks or Lambdas; the agent's next heartbeat answers `terminate` (pull).
 */
export const TimeoutOccurred = defineEvent('TimeoutOccurred', 1, {
  ...attemptFields,
  ...timeoutFields,
  action: z.enum(['dlq', 'skip', 'fail', 'graceful_terminate', 'retry']),
  terminateBy: isoTime,
});
