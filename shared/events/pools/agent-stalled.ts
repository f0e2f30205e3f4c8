import { count, defineEvent, isoTime } from '../event-contract.js';
import { attemptFields } from './pool-event-fields.js';

/** Seed 002 `agent_stalled`: `stall_threshold` missed checkpoints; the attempt is told to terminate. */
export const AgentStalled = defineEvent('AgentStalled', 1, {
  ...attemptFields,
  misses: count(),
  terminateBy: isoTime,
});
