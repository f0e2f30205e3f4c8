import { z } from 'zod';

/** Ids are 1–128 characters of `[A-Za-z0-9._:-]` (contract). */
export const id = z
  .string()
  .min(1)
  .max(128)
  .regex(/^[A-Za-z0-9._:-]+$/, 'must be 1–128 characters of A-Z a-z 0-9 . _ : -');

const MAX_TIMEOUT_SECONDS = 31_536_000;

export const workflowsSchema = z
  .array(z.object({ workflowId: id, workerId: id }).strict())
  .min(1, 'a job needs at least one workflow')
  .max(10_000, 'a job may have at most 10,000 workflows')
  .refine((workflows) => new Set(workflows.map((w) => w.workflowId)).size === workflows.length, {
    message: 'workflowId values must be unique within a job',
  });

export const timeoutSecondsSchema = z
  .number()
  .positive('must be greater than 0')
  .max(MAX_TIMEOUT_SECONDS, `must be at most ${MAX_TIMEOUT_SECONDS} (one year)`);

export const stuckThresholdSecondsSchema = z.number().positive('must be greater than 0').max(MAX_TIMEOUT_SECONDS);

export const submitJobBody = z
  .object({
    jobId: id.optional(),
    timeoutSeconds: timeoutSecondsSchema,
    stuckThresholdSeconds: stuckThresholdSecondsSchema.optional(),
    workflows: workflowsSchema,
  })
  .strict();
export type SubmitJobBody = z.infer<typeof submitJobBody>;

/** What the gate sends a region: the same submission, with the job id fixed and `gateRegion` set. */
export const submitFromGateBody = submitJobBody.extend({ jobId: id, gateRegion: z.string().min(1) }).strict();
export type SubmitFromGateBody = z.infer<typeof submitFromGateBody>;

export const jobPath = z.object({ jobId: id });
export const workflowPath = z.object({ jobId: id, workflowId: id });
export const workerPath = z.object({ workerId: id });

export const progressBody = z
  .object({ workerId: id, progress: z.number().min(0).max(1).optional() })
  .strict();

export const completeBody = z.object({ workerId: id, outcome: z.enum(['completed', 'failed']) }).strict();

export const extensionBody = z
  .object({
    reason: z.enum(['long_workflow', 'gc_pause', 'resource_contention']),
    currentProgress: z.number().min(0).max(1),
    estimatedCompletion: z.iso.datetime({ offset: true }).optional(),
    activeWorkflowCount: z.number().int().nonnegative().optional(),
  })
  .strict();

export const cancelBody = z.object({ reason: z.string().max(1024).optional() }).strict();
