import * as z from '../validation/zod.js';
import { jobStatusSchema } from './manager-responses.js';

// Loose objects, like every answer: a client accepts fields added later.
const isoTime = z.string();
const strategySchema = z.enum(['local_authority', 'gate_coordinated']);

export const jobListAnswer = z.looseObject({
  jobs: z.array(
    z.looseObject({
      jobId: z.string(),
      status: jobStatusSchema,
      strategy: strategySchema,
      createdAt: isoTime,
      deadlineAt: isoTime,
      timeoutReason: z.optional(z.string()),
      finishedAt: z.optional(isoTime),
      regions: z.optional(z.array(z.string())),
    }),
  ),
  nextCursor: z.optional(z.string()),
});

export const historyEntryAnswer = z.looseObject({
  kind: z.enum(['submitted', 'progress', 'heartbeat', 'extension', 'gate_report', 'local_timeout', 'timeout_report', 'takeover', 'gate_decision', 'region_confirmed', 'final']),
  at: isoTime,
});

export const jobHistoryAnswer = z.looseObject({
  jobId: z.string(),
  source: z.string(),
  status: jobStatusSchema,
  strategy: strategySchema,
  startedAt: isoTime,
  timeoutSeconds: z.number(),
  originalDeadlineAt: isoTime,
  effectiveDeadlineAt: isoTime,
  timeoutReason: z.optional(z.string()),
  finishedAt: z.optional(isoTime),
  now: isoTime,
  truncated: z.boolean(),
  entries: z.array(historyEntryAnswer),
});
