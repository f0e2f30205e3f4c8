import * as z from '../validation/zod.js';
import { sealedCursor } from './manager-requests.js';

/** `GET /jobs?status=&limit=&cursor=` on a region manager and on the gate. */
export const listJobsQuery = z.strictObject({
  status: z.optional(z.enum(['RUNNING', 'COMPLETED', 'FAILED', 'CANCELLED', 'TIMED_OUT'])),
  limit: z.optional(
    z
      .string()
      .check(z.regex(/^[0-9]{1,3}$/, 'must be a whole number from 1 to 100'), z.refine((text) => Number(text) >= 1 && Number(text) <= 100, 'must be from 1 to 100')),
  ),
  cursor: z.optional(sealedCursor),
});
export type ListJobsQuery = z.infer<typeof listJobsQuery>;

export const DEFAULT_LIST_LIMIT = 25;
