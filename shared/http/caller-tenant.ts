import type { APIGatewayProxyEventV2 } from 'aws-lambda';
import { InvalidRequestError } from '../domain/errors.js';
import { DEFAULT_TENANT, MAX_TENANT_LENGTH } from '../domain/tenant.js';

/** The IAM authorizer's context on a SigV4-signed route of an HTTP API. */
interface IamAuthorizerContext {
  iam?: { accountId?: string; userArn?: string };
}

const TENANT = /^[A-Za-z0-9._:\/@+=,-]{1,256}$/;
/** In every partition (`aws`, `aws-cn`, `aws-us-gov`, …): a role's sessions are one tenant. */
const ASSUMED_ROLE = /^arn:[a-z-]+:sts::\d{12}:assumed-role\/[^/]+\/[^/]+$/;

/**
 * Whose workers a client call names. On AWS every client route is SigV4-signed behind
 * the IAM authorizer, and the tenant is the caller's principal: its ARN, with an assumed role's
 * session name dropped so every session of one role is one tenant. The local cloud has no
 * authorizer: there the `x-vigil-tenant` header picks a tenant, and without it every caller is
 * the default tenant. On Lambda the header is never read: a client route reached without the
 * authorizer is refused.
 */
export function callerTenant(event: APIGatewayProxyEventV2): string {
  const authorizer = (event.requestContext as { authorizer?: IamAuthorizerContext }).authorizer;
  const arn = authorizer?.iam?.userArn;
  if (arn) {
    const tenant = ASSUMED_ROLE.test(arn) ? arn.slice(0, arn.lastIndexOf('/')) : arn;
    // No IAM principal's ARN is this long; were one, it could not key its workers' items.
    if (tenant.length > MAX_TENANT_LENGTH) throw new InvalidRequestError(`The calling principal's ARN is longer than ${MAX_TENANT_LENGTH} characters; call as a principal with a shorter path.`);
    return tenant;
  }
  // On Lambda a client route without the authorizer (a misrouted call, the worker URL) names no tenant.
  if (authorizer !== undefined || process.env['AWS_LAMBDA_FUNCTION_NAME'] !== undefined) {
    throw new InvalidRequestError('This route needs a SigV4-signed request from an IAM principal.');
  }
  const header = event.headers?.['x-vigil-tenant'];
  if (header === undefined) return DEFAULT_TENANT;
  if (!TENANT.test(header)) {
    throw new InvalidRequestError('x-vigil-tenant must be 1–256 characters of A-Z a-z 0-9 . _ : / @ + = , -; leave it out for the default tenant.');
  }
  return header;
}
