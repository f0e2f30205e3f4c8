import * as z from '../validation/zod.js';
import { id, stuckThresholdSecondsSchema, timeoutSecondsSchema, workflowsSchema } from './manager-requests.js';

/**
 * zod's record leaves out a `__proto__` key without a word (writing it would replace the result's
 * prototype), so a region named so would be dropped from the job, or read as none named: it is
 * refused by name before the record reads the rest.
 */
const withoutProtoKey = z.transform((datacenters: unknown, ctx) => {
  if (typeof datacenters === 'object' && datacenters !== null && Object.hasOwn(datacenters, '__proto__')) {
    ctx.issues.push({ code: 'custom', input: datacenters, path: ['__proto__'], message: 'is not a region name; name only the regions the job runs in' });
  }
  return datacenters;
});

export const gateSubmitJobBody = z.strictObject({
  jobId: z.optional(id),
  timeoutSeconds: timeoutSecondsSchema,
  stuckThresholdSeconds: z.optional(stuckThresholdSecondsSchema),
  datacenters: z.pipe(
    withoutProtoKey,
    z
      .record(z.string().check(z.minLength(1)), z.strictObject({ workflows: workflowsSchema }))
      .check(z.refine((datacenters) => Object.keys(datacenters).length > 0, { message: 'name at least one region under datacenters' })),
  ),
});
export type GateSubmitJobBody = z.infer<typeof gateSubmitJobBody>;
