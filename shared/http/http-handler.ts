import middy from '@middy/core';
import type { APIGatewayProxyEventV2, APIGatewayProxyStructuredResultV2, Context } from 'aws-lambda';
import type * as z from '../validation/zod.js';
import { duplicateJsonKey, duplicateKeyMessage } from '../contract/duplicate-json-key.js';
import { InvalidRequestError } from '../domain/errors.js';
import { errorResponse } from './error-response.js';
import { logger } from '../telemetry/powertools.js';
import { observability } from './lambda-context.js';

export interface HttpReply {
  statusCode: number;
  body: unknown;
}

export const ok = (body: unknown): HttpReply => ({ statusCode: 200, body });
export const created = (body: unknown): HttpReply => ({ statusCode: 201, body });
export const accepted = (body: unknown): HttpReply => ({ statusCode: 202, body });
/** 204: the body is dropped. */
export const noContent = (): HttpReply => ({ statusCode: 204, body: undefined });

type Parsed<S> = S extends z.ZodMiniType ? z.infer<S> : undefined;

interface RouteSchemas<Path extends z.ZodMiniType | undefined, Body extends z.ZodMiniType | undefined, Query extends z.ZodMiniType | undefined> {
  path?: Path;
  body?: Body;
  query?: Query;
}

export interface RouteRequest<Path, Body, Query = undefined> {
  path: Path;
  body: Body;
  query: Query;
  headers: Record<string, string | undefined>;
  event: APIGatewayProxyEventV2;
}

function parseJsonBody(event: APIGatewayProxyEventV2): unknown {
  if (event.body === undefined || event.body === '') return {};
  const text = event.isBase64Encoded ? Buffer.from(event.body, 'base64').toString('utf8') : event.body;
  let parsed: unknown;
  try {
    parsed = JSON.parse(text);
  } catch {
    throw new InvalidRequestError('The body is not valid JSON. Send a JSON object with Content-Type: application/json.');
  }
  const repeated = duplicateJsonKey(text);
  if (repeated !== undefined) throw new InvalidRequestError(duplicateKeyMessage(repeated));
  return parsed;
}

const json = (statusCode: number, body: unknown, headers: Record<string, string> = {}): APIGatewayProxyStructuredResultV2 =>
  statusCode === 204 ? { statusCode } : { statusCode, headers: { 'content-type': 'application/json', ...headers }, body: JSON.stringify(body) };

/**
 * The project's one HTTP middy stack: JSON body, zod validation of path, query and body, errors mapped to
 * the API's error shape (docs/api.md). A handler file is this plus one use-case call.
 */
export function httpRoute<
  Path extends z.ZodMiniType | undefined = undefined,
  Body extends z.ZodMiniType | undefined = undefined,
  Query extends z.ZodMiniType | undefined = undefined,
>(schemas: RouteSchemas<Path, Body, Query>) {
  return {
    handle(run: (request: RouteRequest<Parsed<Path>, Parsed<Body>, Parsed<Query>>) => Promise<HttpReply>) {
      return middy<APIGatewayProxyEventV2, APIGatewayProxyStructuredResultV2, Error, Context>()
        .use(observability())
        .handler(async (event) => {
          try {
            const path = (schemas.path ? schemas.path.parse(event.pathParameters ?? {}) : undefined) as Parsed<Path>;
            const body = (schemas.body ? schemas.body.parse(parseJsonBody(event)) : undefined) as Parsed<Body>;
            const query = (schemas.query ? schemas.query.parse(event.queryStringParameters ?? {}) : undefined) as Parsed<Query>;
            const reply = await run({ path, body, query, headers: event.headers ?? {}, event });
            return json(reply.statusCode, reply.body);
          } catch (error) {
            const mapped = errorResponse(error);
            if (mapped.unexpected) logger.error('unexpected error', { error: error as Error, path: event.rawPath });
            return json(mapped.statusCode, mapped.body, mapped.headers);
          }
        });
    },
  };
}
