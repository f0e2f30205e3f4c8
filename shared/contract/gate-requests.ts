import * as z from '../validation/zod.js';
import { keyedRecord } from './keyed-record.js';
import { id, stuckThresholdSecondsSchema, timeoutSecondsSchema, workflowsSchema } from './manager-requests.js';

export const gateSubmitJobBody = z.strictObject({
  jobId: z.optional(id),
  timeoutSeconds: timeoutSecondsSchema,
  stuckThresholdSeconds: z.optional(stuckThresholdSecondsSchema),
  datacenters: keyedRecord(z.string().check(z.minLength(1)), z.strictObject({ workflows: workflowsSchema }), 'a region name; name only the regions the job runs in').check(
    z.refine((datacenters) => Object.keys(datacenters).length > 0, { message: 'name at least one region under datacenters' }),
  ),
});
export type GateSubmitJobBody = z.infer<typeof gateSubmitJobBody>;
