import * as z from '../validation/zod.js';

/** Every non-2xx answer (contract "Errors"): a machine-readable code and a message saying how to fix it. */
export const errorBodySchema = z.object({
  error: z.object({
    code: z.string(),
    message: z.string(),
    details: z.optional(z.unknown()),
  }),
});
export type ErrorBody = z.infer<typeof errorBodySchema>;
