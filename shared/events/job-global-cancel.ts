import { z } from 'zod';
import { defineEvent, jobId } from './event-contract.js';

/** Gate → one region's manager: the job was cancelled through the gate. */
export const JobGlobalCancel = defineEvent('JobGlobalCancel', 1, {
  jobId,
  region: z.string(),
  reason: z.string().optional(),
});
export type JobGlobalCancel = ReturnType<typeof JobGlobalCancel.parse>;
