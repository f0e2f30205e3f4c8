import * as z from '../validation/zod.js';
import { keyedRecord } from './keyed-record.js';
import { id, stuckThresholdSecondsSchema, timeoutSecondsSchema, workflowsSchema } from './manager-requests.js';

/**
 * A region's name, as the gate's regions are named (`us-east-1`; the local cloud's are at most 32
 * characters). Bounded, so a refusal that names it stays small whatever a caller sends.
 */
export const MAX_REGION_NAME_LENGTH = 64;
const regionName = z
  .string()
  .check(z.minLength(1), z.maxLength(MAX_REGION_NAME_LENGTH, `must be at most ${MAX_REGION_NAME_LENGTH} characters, the name of a region the gate runs (like us-east-1)`));

export const gateSubmitJobBody = z.strictObject({
  jobId: z.optional(id),
  timeoutSeconds: timeoutSecondsSchema,
  stuckThresholdSeconds: z.optional(stuckThresholdSecondsSchema),
  datacenters: keyedRecord(regionName, z.strictObject({ workflows: workflowsSchema }), 'a region name; name only the regions the job runs in').check(
    z.refine((datacenters) => Object.keys(datacenters).length > 0, { message: 'name at least one region under datacenters' }),
  ),
});
export type GateSubmitJobBody = z.infer<typeof gateSubmitJobBody>;
