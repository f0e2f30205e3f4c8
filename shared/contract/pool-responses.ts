import * as z from '../validation/zod.js';

// What the SDK relies on in the agent-fleet answers (contract "Agent fleets — v2"); loose, so
// fields added later pass through.

export const claimAnswer = z.looseObject({
  itemId: z.string(),
  attempt: z.number(),
  token: z.string(),
  input: z.optional(z.unknown()),
  deadlineAt: z.nullable(z.optional(z.string())),
  commands: z.optional(z.array(z.looseObject({ index: z.number(), type: z.string(), limitSeconds: z.nullable(z.number()) }))),
  checkpointIntervalSeconds: z.optional(z.number()),
  // Absent from a Vigil older than it: the SDK then beats every 5 s, as it did.
  heartbeatIntervalSeconds: z.optional(
    z.number().check(
      z.describe(
        "How often the attempt should heartbeat: a third of the lesser of the pool's cleanup_grace_period_secs and checkpoint_timeout_secs (10 s for a default pool), at least 1 s, at most half checkpoint_interval_secs. A beat that comes a whole interval after a pool's cancel or fail, a stall, or a checkpoint collection still leaves two thirds of the grace period or checkpoint timeout to act in.",
      ),
    ),
  ),
  lastCheckpoint: z.optional(z.unknown()),
});
export type Claim = z.infer<typeof claimAnswer>;

export const heartbeatAnswer = z.looseObject({
  action: z.enum(['continue', 'checkpoint', 'terminate']),
  deadlineAt: z.nullable(z.optional(z.string())),
  terminateBy: z.nullable(z.optional(z.string())),
});
export type HeartbeatAnswer = z.infer<typeof heartbeatAnswer>;

export const commandStartAnswer = z.looseObject({ deadlineAt: z.nullable(z.optional(z.string())) });

const poolStatus = z.enum(['RUNNING', 'COMPLETED', 'FAILED', 'CANCELLED']);
export const poolAnswer = z.looseObject({ poolId: z.string(), status: poolStatus, config: z.optional(z.unknown()) });
export const itemAnswer = z.looseObject({ itemId: z.string(), state: z.string(), attempt: z.number() });
export const dlqAnswer = z.looseObject({ items: z.array(z.looseObject({ itemId: z.string() })) });
export const escalationsAnswer = z.looseObject({ escalations: z.array(z.looseObject({ escalationId: z.string(), poolId: z.string(), itemId: z.string() })) });
export const collectionStartAnswer = z.looseObject({ collectionId: z.string() });
export const collectionAnswer = z.looseObject({
  status: z.enum(['collecting', 'done']),
  collected: z.array(z.unknown()),
  missing: z.array(z.string()),
  nextCursor: z.optional(z.string()),
});
export const metricsAnswer = z.looseObject({ agentsStarted: z.number(), agentsCompleted: z.number(), timeoutsOccurred: z.number() });
/** An answer this document only says is a JSON object. */
export const objectAnswer = z.looseObject({});
