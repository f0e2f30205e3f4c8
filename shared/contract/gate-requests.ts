import { z } from 'zod';
import { id, stuckThresholdSecondsSchema, timeoutSecondsSchema, workflowsSchema } from './manager-requests.js';

export const gateSubmitJobBody = z
  .object({
    jobId: id.optional(),
    timeoutSeconds: timeoutSecondsSchema,
    stuckThresholdSeconds: stuckThresholdSecondsSchema.optional(),
    datacenters: z
      .record(z.string().min(1), z.object({ workflows: workflowsSchema }).strict())
      .refine((datacenters) => Object.keys(datacenters).length > 0, { message: 'name at least one region under datacenters' }),
  })
  .strict();
export type GateSubmitJobBody = z.infer<typeof gateSubmitJobBody>;
