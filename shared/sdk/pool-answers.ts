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
