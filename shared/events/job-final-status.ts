import * as z from '../validation/zod.js';
import { defineEvent, fenceToken, isoTime, jobId } from './event-contract.js';

/** Manager → gate: the job ended in this region (seed 001 §10.2.5). */
export const JobFinalStatus = defineEvent('JobFinalStatus', 1, {
  jobId,
  region: z.string(),
  gateRegion: z.string(),
  managerId: z.string(),
  status: z.enum(['COMPLETED', 'FAILED', 'CANCELLED', 'TIMED_OUT']),
  timeoutReason: z.optional(z.string()),
  timestamp: isoTime,
  fenceToken,
});
export type JobFinalStatus = ReturnType<typeof JobFinalStatus.parse>;
