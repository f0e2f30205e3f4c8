import * as z from '../validation/zod.js';
import { errorBodySchema } from './error-body.js';
import type { DocumentedRoute, ErrorStatus, RouteDoc } from './route-doc.js';

const errorMeaning: Record<ErrorStatus | 500, string> = {
  400: 'Malformed JSON or a schema violation (`invalid_request`, `details` names each bad field)',
  401: "Missing token (`missing_token`): send the token in the 'x-vigil-token' header",
  403: 'Wrong token (`invalid_token`)',
  404: "Unknown job, workflow, item or route; another tenant's job answers exactly as an unknown one",
  409: 'State conflict (a finished job, a different body for the same id, a stale attempt)',
  413: "The request exceeds 6 MiB as a Lambda function gets it (the body with the headers; base64-encoded, a third larger, unless it is JSON or text): `payload_too_large` from npm start, API Gateway's own body on AWS",
  500: 'Vigil failed to handle the request; it is safe to retry',
  503: 'An upstream (a region, the gate) is unavailable (`upstream_unavailable`), other calls kept changing the same job or item at that moment (`busy`), or a key rotated in moments ago cannot be read yet (`keys_refreshing`); nothing changed: retry later',
};

type JsonSchema = Record<string, unknown>;

const retryAfterHeader = {
  description: 'Whole seconds to wait before retrying, where Vigil can tell (`busy`, `keys_refreshing`)',
  schema: { type: 'integer', minimum: 1 },
};

/** Operations are grouped by who calls them. */
const tagOf: Record<RouteDoc['auth'], string> = { iam: 'client', worker: 'worker', public: 'public' };

function schemaOf(schema: z.ZodMiniType, io: 'input' | 'output'): JsonSchema {
  // `any` for what JSON cannot say (refinements across fields): the handler still checks them.
  const { $schema: _dialect, ...json } = z.toJSONSchema(schema, { io, unrepresentable: 'any', target: 'draft-2020-12' }) as JsonSchema;
  return json;
}

function parametersOf(schema: z.ZodMiniType | undefined, where: 'path' | 'query') {
  if (!schema) return [];
  const json = schemaOf(schema, 'input') as { properties?: Record<string, JsonSchema>; required?: string[] };
  return Object.entries(json.properties ?? {}).map(([name, property]) => ({
    name,
    in: where,
    required: where === 'path' || (json.required ?? []).includes(name),
    schema: property,
  }));
}

function operationOf(route: DocumentedRoute) {
  const doc: RouteDoc = route.doc;
  const responses: Record<string, unknown> = {};
  for (const [status, answer] of Object.entries(doc.answers)) {
    responses[status] = answer.schema
      ? { description: answer.description, content: { 'application/json': { schema: schemaOf(answer.schema, 'output') } } }
      : { description: answer.description };
  }
  // Every route can be fed bad input or an unknown path, and can fail.
  const errors = new Set<ErrorStatus | 500>([400, 404, 500, ...(doc.errors ?? [])]);
  if (route.method === 'POST') errors.add(413);
  if (doc.auth === 'worker') {
    errors.add(401);
    errors.add(403);
    // A token under a key rotated in moments ago, before this container can read it: 503 `keys_refreshing`.
    errors.add(503);
  }
  for (const status of [...errors].sort()) {
    responses[String(status)] = { $ref: `#/components/responses/Error${status}` };
  }
  return {
    operationId: operationId(route),
    summary: doc.summary,
    tags: [tagOf[doc.auth]],
    ...(doc.auth === 'public' ? { security: [] } : { security: [doc.auth === 'iam' ? { sigv4: [] } : { workerToken: [] }] }),
    parameters: [...parametersOf(doc.path, 'path'), ...parametersOf(doc.query, 'query')],
    ...(doc.body
      ? {
          requestBody: {
            // A missing body is read as `{}` (shared/http/http-handler.ts): required only when `{}` is not valid.
            required: !doc.body.safeParse({}).success,
            content: { 'application/json': { schema: schemaOf(doc.body, 'input') } },
          },
        }
      : {}),
    responses,
  };
}

function operationId(route: DocumentedRoute): string {
  const words = route.path
    .split('/')
    .filter(Boolean)
    .map((segment) => (segment.startsWith('{') ? `by-${segment.slice(1, -1)}` : segment));
  return [route.method.toLowerCase(), ...words]
    .join('-')
    .replace(/[^A-Za-z0-9]+(.)/g, (_, next: string) => next.toUpperCase());
}

/** An OpenAPI 3.1 document of `routes`, generated from the zod schemas their handlers validate with. */
export function openApiDocument(info: { title: string; description: string; version: string }, routes: readonly DocumentedRoute[]) {
  const paths: Record<string, Record<string, unknown>> = {};
  for (const route of [...routes].sort((a, b) => a.path.localeCompare(b.path) || a.method.localeCompare(b.method))) {
    (paths[route.path] ??= {})[route.method.toLowerCase()] = operationOf(route);
  }
  const errorResponses = Object.fromEntries(
    Object.entries(errorMeaning).map(([status, description]) => [
      `Error${status}`,
      {
        description,
        ...(status === '503' ? { headers: { 'Retry-After': retryAfterHeader } } : {}),
        content: { 'application/json': { schema: { $ref: '#/components/schemas/Error' } } },
      },
    ]),
  );
  return {
    openapi: '3.1.0',
    info,
    paths,
    components: {
      schemas: { Error: schemaOf(errorBodySchema, 'output') },
      responses: errorResponses,
      securitySchemes: {
        workerToken: {
          type: 'apiKey',
          in: 'header',
          name: 'x-vigil-token',
          description: 'The token POST /jobs returned for the workflow (or a claim returned for the attempt).',
        },
        sigv4: {
          type: 'apiKey',
          in: 'header',
          name: 'Authorization',
          description:
            "AWS SigV4 (service execute-api) with credentials allowed execute-api:Invoke on a deployed API. The caller's IAM principal is its tenant: a job route answers another tenant's job as an unknown one (404) and GET /jobs lists only the caller's jobs. The local cloud (npm start) does not check SigV4; there the x-vigil-tenant header names the tenant (default without it).",
        },
      },
    },
  };
}
