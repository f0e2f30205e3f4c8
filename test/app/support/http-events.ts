import type { APIGatewayProxyEventV2, APIGatewayProxyStructuredResultV2, Context } from 'aws-lambda';
import type { FieldProblem } from '../../../shared/contract/error-body.js';
import { localContext } from '../../../shared/local/lambda-context.js';
import { REGION } from '../../support/fixtures.js';

export interface HttpRequest {
  method: 'GET' | 'POST';
  /** The route template, e.g. `/jobs/{jobId}/cancel`; filled from `pathParameters`. */
  route: string;
  pathParameters?: Record<string, string>;
  /** An object is sent as JSON; a string is sent as-is (for malformed bodies). */
  body?: unknown;
  headers?: Record<string, string>;
  query?: Record<string, string>;
  /** The caller as API Gateway's IAM authorizer names it (a SigV4-signed request on AWS). */
  iamUserArn?: string;
}

/** An API Gateway HTTP API (payload v2) event, as API Gateway and the local listener build it. */
export function httpEvent(request: HttpRequest): APIGatewayProxyEventV2 {
  const pathParameters = request.pathParameters ?? {};
  const rawPath = request.route.replace(/\{(\w+)\}/g, (_, name: string) => encodeURIComponent(pathParameters[name] ?? ''));
  const routeKey = `${request.method} ${request.route}`;
  const body = request.body === undefined ? undefined : typeof request.body === 'string' ? request.body : JSON.stringify(request.body);
  return {
    version: '2.0',
    routeKey,
    rawPath,
    rawQueryString: new URLSearchParams(request.query ?? {}).toString(),
    ...(request.query ? { queryStringParameters: request.query } : {}),
    headers: { 'content-type': 'application/json', ...request.headers },
    pathParameters,
    stageVariables: { region: REGION },
    requestContext: {
      accountId: '000000000000',
      apiId: 'test',
      domainName: 'test.local',
      domainPrefix: 'test',
      http: { method: request.method, path: rawPath, protocol: 'HTTP/1.1', sourceIp: '127.0.0.1', userAgent: 'vitest' },
      requestId: 'test-request',
      routeKey,
      stage: '$default',
      time: new Date(0).toISOString(),
      timeEpoch: 0,
      ...(request.iamUserArn !== undefined ? { authorizer: { iam: { userArn: request.iamUserArn } } } : {}),
    },
    ...(body !== undefined ? { body } : {}),
    isBase64Encoded: false,
  };
}

type HttpLambda = (event: APIGatewayProxyEventV2, context: Context) => Promise<APIGatewayProxyStructuredResultV2>;

export interface HttpAnswer {
  statusCode: number;
  body: Record<string, unknown>;
}

/** The error part of a non-2xx answer body (`{ error: { code, message, details? } }`). */
export interface ErrorBody {
  code: string;
  message: string;
  details?: FieldProblem[];
}

/** Invokes a handler module's export with the event and parses its JSON answer. */
export async function invoke(handler: HttpLambda, request: HttpRequest): Promise<HttpAnswer> {
  const result = await handler(httpEvent(request), localContext('vigil-test', REGION));
  return { statusCode: result.statusCode ?? 200, body: JSON.parse(result.body ?? '{}') as Record<string, unknown> };
}

export const errorOf = (answer: HttpAnswer): ErrorBody => answer.body['error'] as ErrorBody;
