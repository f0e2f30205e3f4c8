import * as z from '../validation/zod.js';
import type { HttpLambda, Route } from './http-routes.js';

/** `GET /openapi.json`: every listener describes its own routes. */
export function openApiRoute(listener: 'region' | 'gate', handler: () => Promise<HttpLambda>): Route {
  return {
    method: 'GET',
    path: '/openapi.json',
    doc: {
      summary: `This OpenAPI 3.1 document (the ${listener === 'gate' ? 'gate' : 'region manager'} API)`,
      auth: 'public',
      answers: { 200: { description: 'The document', schema: z.looseObject({ openapi: z.string() }) } },
    },
    handler,
  };
}
