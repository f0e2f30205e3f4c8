import * as z from '../validation/zod.js';
import { defineEvent, fenceToken, isoTime, jobId } from './event-contract.js';

/** For downstream consumers: published once for every job that ends TIMED_OUT in a region. */
export const JobTimedOut = defineEvent('JobTimedOut', 1, {
  jobId,
  region: z.string(),
  strategy: z.enum(['local_authority', 'gate_coordinated']),
  reason: z.enum(['timeout', 'stuck', 'global_timeout', 'gate_fallback']),
  startedAt: isoTime,
  timedOutAt: isoTime,
  fenceToken,
});
export type JobTimedOut = ReturnType<typeof JobTimedOut.parse>;
