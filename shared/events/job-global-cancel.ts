import * as z from '../validation/zod.js';
import { defineEvent, jobId } from './event-contract.js';

/** Gate → one region's manager: the job was cancelled through the gate. */
export const JobGlobalCancel = defineEvent('JobGlobalCancel', 1, {
  jobId,
  region: z.string(),
  reason: z.optional(z.string()),
});
export type JobGlobalCancel = ReturnType<typeof JobGlobalCancel.parse>;
