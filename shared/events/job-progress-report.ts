import * as z from '../validation/zod.js';
import { count, nonNegative, defineEvent, fenceToken, isoTime, jobId } from './event-contract.js';

/** Manager → gate, every report interval while the job runs (seed 001 §10.2.1). */
export const JobProgressReport = defineEvent('JobProgressReport', 1, {
  jobId,
  region: z.string(),
  gateRegion: z.string(),
  managerId: z.string(),
  workflowsTotal: count(),
  workflowsCompleted: count(),
  workflowsFailed: count(),
  hasRecentProgress: z.boolean(),
  lastProgressAt: isoTime,
  timestamp: isoTime,
  fenceToken,
  totalExtensionsGranted: nonNegative(),
  maxWorkerExtension: nonNegative(),
  workersWithExtensions: count(),
});
export type JobProgressReport = ReturnType<typeof JobProgressReport.parse>;
