import type { APIGatewayProxyEventV2 } from 'aws-lambda';
import type { ErrorBody } from '../http/error-response.js';

/**
 * Lambda's limit on a synchronous invocation's request: the whole event API Gateway builds, headers
 * and the body as it hands it over (JSON-escaped, or base64 for a type it does not pass as text, a
 * third larger), not the body alone. Past it, API Gateway answers the caller itself.
 */
export const LAMBDA_REQUEST_BYTES = 6 * 1024 * 1024;

/** Whether a function on AWS would be handed this event at all. */
export const fitsLambdaRequest = (event: APIGatewayProxyEventV2): boolean => Buffer.byteLength(JSON.stringify(event), 'utf8') <= LAMBDA_REQUEST_BYTES;

/** The local cloud's 413, where AWS refuses the request before any Vigil code runs. */
export const payloadTooLarge: ErrorBody = {
  error: {
    code: 'payload_too_large',
    message:
      'The request is over 6 MiB as a Lambda function would get it on AWS (the body with the headers; a body whose Content-Type is not JSON or text ' +
      'is base64-encoded, a third larger). Send fewer workflows or items per request, as application/json.',
  },
};
