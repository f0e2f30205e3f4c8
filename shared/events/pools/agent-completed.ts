import * as z from '../../validation/zod.js';
import { defineEvent, nonNegative } from '../event-contract.js';
import { attemptFields } from './pool-event-fields.js';

/**
 * Seed 003 TimeoutEvent::AgentCompleted: the attempt ended on the agent's own word. The seed's
 * `unregister_agent_timeout` sends it whenever an attempt's handle is removed without a timeout, so
 * every attempt that AgentStarted opened ends on the bus with this or with TimeoutResolved.
 * - `succeeded` / `failed`: the agent's `complete`.
 * - `cancelled` (version 2, the word the item's history uses for the same end): a `terminated` nobody asked for (a runner's Ctrl-C, a crash handler);
 *   `itemState` says where the item went (`available` again, or `escalated` at the
 *   `timeout_escalation`-th give-back) and `cleanup` is what the agent reported.
 *
 * Version 2 widens `outcome`, which the additive rule of event-contract.ts does not cover, and is
 * the one exception to it: `cancelled` names an end version 1 published no event for at all, so
 * every event a version-1 reader received before still comes to it unchanged; only the new events
 * are news to it (a reader that checks `outcome` against its two values skips them).
 */
export const AgentCompleted = defineEvent('AgentCompleted', 2, {
  ...attemptFields,
  outcome: z.enum(['succeeded', 'failed', 'cancelled']),
  durationSeconds: nonNegative(),
  cleanup: z.optional(z.enum(['completed', 'failed'])),
  itemState: z.optional(z.string()),
});
