import * as z from '../validation/zod.js';
import { nonNegative, defineEvent, fenceToken, jobId } from './event-contract.js';

/** Manager → gate: a DC-local timeout was detected (seed 001 §10.2.2). Resent until the gate decides. */
export const JobTimeoutReport = defineEvent('JobTimeoutReport', 1, {
  jobId,
  region: z.string(),
  gateRegion: z.string(),
  managerId: z.string(),
  reason: z.enum(['timeout', 'stuck']),
  elapsedSeconds: nonNegative(),
  fenceToken,
});
export type JobTimeoutReport = ReturnType<typeof JobTimeoutReport.parse>;
