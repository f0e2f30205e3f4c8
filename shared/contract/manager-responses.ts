import * as z from '../validation/zod.js';

// Answers are loose objects: a client must accept fields added later. The SDK parses answers with
// these schemas and the OpenAPI document describes them, so both follow what the handlers return.

const isoTime = z.string();
export const jobStatusSchema = z.enum(['RUNNING', 'COMPLETED', 'FAILED', 'CANCELLED', 'TIMED_OUT']);
const strategySchema = z.enum(['local_authority', 'gate_coordinated']);

export const healthAnswer = z.looseObject({ status: z.literal('ok') });

export const submittedJobAnswer = z.looseObject({
  jobId: z.string(),
  status: jobStatusSchema,
  strategy: strategySchema,
  fenceToken: z.number(),
  deadlineAt: isoTime,
  workflows: z.array(z.looseObject({ workflowId: z.string(), workerId: z.string(), token: z.string() })),
  /** Present when the job has more than one page of tokens: `GET /jobs/{jobId}/tokens?cursor=`. */
  nextCursor: z.optional(z.string()),
});
export type SubmittedJobAnswer = z.infer<typeof submittedJobAnswer>;

export const jobAnswer = z.looseObject({
  jobId: z.string(),
  status: jobStatusSchema,
  strategy: strategySchema,
  fenceToken: z.number(),
  timeoutReason: z.optional(z.string()),
  deadlineAt: isoTime,
  timeoutTracking: z.looseObject({
    startedAt: isoTime,
    lastProgressAt: isoTime,
    timeoutSeconds: z.number(),
    stuckThresholdSeconds: z.number(),
    totalExtensionsGranted: z.number(),
    effectiveDeadlineAt: isoTime,
    locallyTimedOut: z.boolean(),
    globallyTimedOut: z.boolean(),
  }),
  workflows: z.array(
    z.looseObject({
      workflowId: z.string(),
      workerId: z.string(),
      state: z.enum(['running', 'completed', 'failed', 'cancelled']),
      lastProgressAt: z.optional(isoTime),
      lastHeartbeatAt: z.optional(isoTime),
      progress: z.optional(z.number()),
      step: z.optional(z.string()),
    }),
  ),
  /** More workflows follow: pass it as `?cursor=` for the next page. */
  nextCursor: z.optional(z.string()),
});
export type JobAnswer = z.infer<typeof jobAnswer>;

export const progressAnswer = z.looseObject({
  status: jobStatusSchema,
  cancel: z.boolean(),
  deadlineAt: isoTime,
  /** Whether this call advanced its workflow past what is stored (a higher progress or another step); a heartbeat did not. */
  progressed: z.optional(z.boolean()),
  /** While RUNNING: when the job is timed out as stuck unless some workflow advances first. */
  stuckAt: z.optional(isoTime),
});
export type ProgressAnswer = z.infer<typeof progressAnswer>;

export const completeAnswer = z.looseObject({ jobId: z.string(), workflowId: z.string(), state: z.string(), jobStatus: jobStatusSchema });

export const extensionAnswer = z.looseObject({
  granted: z.boolean(),
  extensionSeconds: z.number(),
  newDeadline: isoTime,
  remainingExtensions: z.number(),
  denialReason: z.optional(z.string()),
});
export type ExtensionAnswer = z.infer<typeof extensionAnswer>;

export const tokenPageAnswer = z.looseObject({
  jobId: z.string(),
  workflows: z.array(z.looseObject({ workflowId: z.string(), workerId: z.string(), token: z.string() })),
  nextCursor: z.optional(z.string()),
});

export const cancelAnswer = z.looseObject({ jobId: z.string(), status: jobStatusSchema });
export const takeoverAnswer = z.looseObject({ jobId: z.string(), fenceToken: z.number() });
export const workerFailureAnswer = z.looseObject({ workerId: z.string(), status: z.literal('failed'), jobsUpdated: z.number() });
