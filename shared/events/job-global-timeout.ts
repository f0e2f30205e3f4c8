import * as z from '../validation/zod.js';
import { defineEvent, fenceToken, isoTime, jobId } from './event-contract.js';

/**
 * Gate → one region's manager: the global timeout (seed 001 §10.2.3). Addressed per region and
 * carrying that region's fence token as the gate knows it, so a stale one is detectable.
 */
export const JobGlobalTimeout = defineEvent('JobGlobalTimeout', 1, {
  jobId,
  region: z.string(),
  reason: z.string().check(z.minLength(1)),
  timedOutAt: isoTime,
  fenceToken,
});
export type JobGlobalTimeout = ReturnType<typeof JobGlobalTimeout.parse>;
