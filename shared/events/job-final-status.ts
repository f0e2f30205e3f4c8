import * as z from '../validation/zod.js';
import { defineEvent, fenceToken, isoTime, jobId } from './event-contract.js';

/**
 * Manager → gate: the job ended in this region (seed 001 §10.2.5).
 *
 * Version 2 adds, for a job cancelled by a call to this region (`POST /jobs/{jobId}/cancel` there),
 * `cancelEverywhere`: the gate is asked to cancel the job in every region and to answer this region
 * with its decision, which tells the region to stop re-sending this; and `cancelReason`, the cancel's
 * reason, which the gate passes on. A gate of version 1 ignores both: the region re-sends until it gives up.
 */
export const JobFinalStatus = defineEvent('JobFinalStatus', 2, {
  jobId,
  region: z.string(),
  gateRegion: z.string(),
  managerId: z.string(),
  status: z.enum(['COMPLETED', 'FAILED', 'CANCELLED', 'TIMED_OUT']),
  timeoutReason: z.optional(z.string()),
  cancelReason: z.optional(z.string()),
  cancelEverywhere: z.optional(z.boolean()),
  timestamp: isoTime,
  fenceToken,
});
export type JobFinalStatus = ReturnType<typeof JobFinalStatus.parse>;
