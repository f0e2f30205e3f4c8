import * as z from '../validation/zod.js';
import { jobStatusSchema } from './manager-responses.js';

export const gateSubmittedJobAnswer = z.looseObject({
  jobId: z.string(),
  strategy: z.literal('gate_coordinated'),
  datacenters: z.record(
    z.string(),
    z.looseObject({ workflows: z.array(z.looseObject({ workflowId: z.string(), workerId: z.string(), token: z.string() })) }),
  ),
});
export type GateSubmittedJobAnswer = z.infer<typeof gateSubmittedJobAnswer>;

export const gateJobAnswer = z.looseObject({
  jobId: z.string(),
  status: jobStatusSchema,
  globallyTimedOut: z.boolean(),
  timeoutReason: z.optional(z.string()),
  submittedAt: z.optional(z.string()),
  timeoutSeconds: z.optional(z.number()),
  datacenters: z.record(
    z.string(),
    z.looseObject({
      status: z.enum(['submitting', 'running', 'completed', 'failed', 'cancelled', 'timed_out']),
      lastProgressAt: z.string(),
      fenceToken: z.number(),
      totalExtensionsGranted: z.optional(z.number()),
      lastReport: z.optional(z.looseObject({ workflows: z.optional(z.looseObject({ total: z.number(), completed: z.number(), failed: z.number() })) })),
    }),
  ),
});
export type GateJobAnswer = z.infer<typeof gateJobAnswer>;
