import { z } from 'zod';
import { defineEvent, fenceToken, isoTime, jobId } from './event-contract.js';

/** Manager → gate, every report interval while the job runs (seed 001 §10.2.1). */
export const JobProgressReport = defineEvent('JobProgressReport', 1, {
  jobId,
  region: z.string(),
  gateRegion: z.string(),
  managerId: z.string(),
  workflowsTotal: z.number().int().nonnegative(),
  workflowsCompleted: z.number().int().nonnegative(),
  workflowsFailed: z.number().int().nonnegative(),
  hasRecentProgress: z.boolean(),
  lastProgressAt: isoTime,
  timestamp: isoTime,
  fenceToken,
  totalExtensionsGranted: z.number().nonnegative(),
  maxWorkerExtension: z.number().nonnegative(),
  workersWithExtensions: z.number().int().nonnegative(),
});
export type JobProgressReport = ReturnType<typeof JobProgressReport.parse>;
