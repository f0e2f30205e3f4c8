import type * as z from '../validation/zod.js';

/**
 * What the OpenAPI document says about one route: the same zod schemas its handler validates with,
 * who may call it, and what it answers. Every route table entry carries one, so a route added to a
 * table is in the document.
 */
export interface RouteDoc {
  summary: string;
  /** `iam`: SigV4 on a deployed API; `worker`: the workflow or attempt token in `x-vigil-token`. */
  auth: 'iam' | 'worker' | 'public';
  path?: z.ZodMiniType;
  query?: z.ZodMiniType;
  body?: z.ZodMiniType;
  /** Success answers by status. A schema-less entry has no body (204). */
  answers: Partial<Record<200 | 201 | 202 | 204, { description: string; schema?: z.ZodMiniType }>>;
  /** Error statuses this route can answer beyond the ones every route can (see `openapi.ts`). */
  errors?: readonly ErrorStatus[];
}

export type ErrorStatus = 400 | 401 | 403 | 404 | 409 | 413 | 503;

export interface DocumentedRoute {
  method: 'GET' | 'POST';
  path: string;
  doc: RouteDoc;
}
