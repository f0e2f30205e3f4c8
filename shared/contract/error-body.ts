import * as z from '../validation/zod.js';

/**
 * One `details` entry of a refused request, whatever refused it (a route's schema, a pool's config):
 * the bad field, what is wrong with it, and `allowed` where the field takes a fixed set of values.
 */
const fieldProblemSchema = z.object({
  field: z.string(),
  message: z.string(),
  allowed: z.optional(z.array(z.unknown())),
});
export type FieldProblem = z.infer<typeof fieldProblemSchema>;

const errorBodyWith = <Details extends z.ZodMiniType>(details: Details) =>
  z.object({ error: z.object({ code: z.string(), message: z.string(), details: z.optional(details) }) });

/**
 * Every non-2xx answer (contract "Errors"): a machine-readable code and a message saying how to fix it.
 * `details` lists field problems, or (the gate's `region_refused`, `upstream_unavailable`) holds each
 * region's answer by region.
 */
export const errorBodySchema = errorBodyWith(z.union([z.array(fieldProblemSchema), z.record(z.string(), z.unknown())]));
export type ErrorBody = z.infer<typeof errorBodySchema>;

/** What a client reads: any `details` passes, so an answer of another Vigil version still keeps its code. */
export const answeredErrorBodySchema = errorBodyWith(z.unknown());
