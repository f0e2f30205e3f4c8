import * as z from '../validation/zod.js';
import { sealedCursor } from './manager-requests.js';
import { pageLimit } from './page-limit.js';

/** `GET /jobs?status=&limit=&cursor=` on a region manager and on the gate. */
export const listJobsQuery = z.strictObject({
  status: z.optional(z.enum(['RUNNING', 'COMPLETED', 'FAILED', 'CANCELLED', 'TIMED_OUT'])),
  limit: z.optional(pageLimit(100)),
  cursor: z.optional(sealedCursor),
});
export type ListJobsQuery = z.infer<typeof listJobsQuery>;

export const DEFAULT_LIST_LIMIT = 25;
