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
  datacenters: z.record(
    z.string(),
    z.looseObject({
      status: z.enum(['submitting', 'running', 'completed', 'failed', 'cancelled', 'timed_out']),
      lastProgressAt: z.string(),
      fenceToken: z.number(),
    }),
  ),
});
export type GateJobAnswer = z.infer<typeof gateJobAnswer>;
