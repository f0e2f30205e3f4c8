import * as z from '../validation/zod.js';
import { MAX_TENANT_LENGTH } from '../domain/tenant.js';
import { MAX_DURATION_SECONDS, storableSeconds } from '../domain/time.js';

/** Ids are 1–128 characters of `[A-Za-z0-9._:-]` (contract). */
export const id = z
  .string()
  .check(
    z.minLength(1),
    z.maxLength(128),
    // `.` and `..` are dot segments: a URL cannot carry them in its path (they are resolved away), so such a job could never be read.
    z.regex(/^(?!\.\.?$)[A-Za-z0-9._:-]+$/, 'must be 1–128 characters of A-Z a-z 0-9 . _ : -, and not "." or ".." (a URL path cannot carry them)'),
  );

/**
 * A sealed page cursor (`shared/app/page-cursors.ts`): opaque text (base64url), checked when opened.
 * The longest position a listing seals (an escalation id of two 128-character ids) makes about 400
 * characters.
 */
export const sealedCursor = z.string().check(z.minLength(1), z.maxLength(1024));

const workflowFields = { workflowId: id, workerId: id };

/** A job's workflows, each read by `workflow`. */
const workflowsOf = <W extends { workflowId: string }>(workflow: z.ZodMiniType<W>) =>
  z.array(workflow).check(
    z.minLength(1, 'a job needs at least one workflow'),
    z.maxLength(10_000, 'a job may have at most 10,000 workflows'),
    z.refine((workflows) => new Set(workflows.map((w) => w.workflowId)).size === workflows.length, {
      message: 'workflowId values must be unique within a job',
    }),
  );

export const workflowsSchema = workflowsOf(z.strictObject(workflowFields));

// Any duration above 0 is accepted (contract).
const anyDurationSeconds = () =>
  z.number().check(z.gt(0, 'must be more than 0'), z.lte(MAX_DURATION_SECONDS, `must be at most ${MAX_DURATION_SECONDS} (one year)`));

/** One shorter than a millisecond is kept as one millisecond (`storableSeconds`). */
export const durationSeconds = () => z.pipe(anyDurationSeconds(), z.transform(storableSeconds));

// A job's durations are read as sent and stored as `storableSeconds` by `startJob`/`startGateJob`:
// the submission's digest is of the body as sent, so two bodies that differ only below a
// millisecond are two bodies (409), not one job's resend (200).
export const timeoutSecondsSchema = anyDurationSeconds();

export const stuckThresholdSecondsSchema = anyDurationSeconds();

const submissionFields = {
  jobId: z.optional(id),
  timeoutSeconds: timeoutSecondsSchema,
  stuckThresholdSeconds: z.optional(stuckThresholdSecondsSchema),
  workflows: workflowsSchema,
};

export const submitJobBody = z.strictObject(submissionFields);
export type SubmitJobBody = z.infer<typeof submitJobBody>;

/**
 * What the gate sends a region: the same submission, with the job id fixed and `gateRegion` set.
 * Read like an event (shared/events/event-contract.ts): regions are upgraded one after another, so
 * a region may hear from a gate one version ahead, which only adds optional fields. A field it does
 * not know, at any depth, is dropped, and the ones it knows are checked as strictly as a client's.
 * A client's own stray field never gets here: the gate's route refuses it.
 */
export const submitFromGateBody = z.object({
  ...submissionFields,
  jobId: id,
  workflows: workflowsOf(z.object(workflowFields)),
  gateRegion: z.string().check(z.minLength(1)),
  /** The gate caller's tenant: the regions scope the job's workers to it. */
  tenant: z.optional(z.string().check(z.minLength(1), z.maxLength(MAX_TENANT_LENGTH))),
});
export type SubmitFromGateBody = z.infer<typeof submitFromGateBody>;

export const jobPath = z.object({ jobId: id });

/** A route that takes no body: none, or `{}`; malformed JSON or a field is refused like any bad body. */
export const emptyBody = z.strictObject({});
/** `GET /jobs/{jobId}/tokens?cursor=`: the cursor is the previous page's `nextCursor`. */
export const tokensQuery = z.strictObject({ cursor: z.optional(z.string()) });
/** `GET /jobs/{jobId}?cursor=`: the previous answer's `nextCursor`, the position of the last workflow it listed. */
export const jobQuery = z.strictObject({ cursor: z.optional(z.string().check(z.regex(/^\d{1,5}$/, 'must be the nextCursor of the previous answer'))) });
export const workflowPath = z.object({ jobId: id, workflowId: id });
export const workerPath = z.object({ workerId: id });

// A fraction finer than 1e-9 means nothing, and DynamoDB cannot store one below 1e-130.
const MIN_NONZERO_FRACTION = 1e-9;
export const fraction = () =>
  z.number().check(
    z.gte(0),
    z.lte(1),
    z.refine((value) => value === 0 || value >= MIN_NONZERO_FRACTION, { message: `must be 0 or at least ${MIN_NONZERO_FRACTION}` }),
  );

/** A workflow's step: opaque text, or a counter; the worker changes it when it finishes something. */
const step = z.union([
  z.string().check(z.minLength(1, 'must not be empty'), z.maxLength(128, 'must be at most 128 characters')),
  z.int().check(z.gte(0, 'a step counter must be a whole number ≥ 0')),
], { error: 'must be text of 1–128 characters or a whole number ≥ 0' });

export const progressBody = z.strictObject({ workerId: id, progress: z.optional(fraction()), step: z.optional(step) });

export const completeBody = z.strictObject({ workerId: id, outcome: z.enum(['completed', 'failed']) });

export const extensionBody = z.strictObject({
  reason: z.enum(['long_workflow', 'gc_pause', 'resource_contention']),
  currentProgress: fraction(),
  // Stored with the grant and shown again for every worker: an ISO time, not the unbounded fraction ISO allows.
  estimatedCompletion: z.optional(
    z.iso.datetime({ offset: true }).check(z.maxLength(40, 'must be at most 40 characters, an ISO 8601 time such as 2026-11-26T16:00:00.000Z')),
  ),
  activeWorkflowCount: z.optional(z.int().check(z.gte(0))),
  // The caller's idempotency key: a repeat with the same id (its answer was lost) is answered with the grant it got.
  requestId: z.optional(id),
});

export const cancelBody = z.strictObject({ reason: z.optional(z.string().check(z.maxLength(1024))) });
