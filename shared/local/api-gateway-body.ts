import type { APIGatewayProxyEventV2 } from 'aws-lambda';

/** The content types an HTTP API (payload 2.0) hands a Lambda as text; it base64-encodes any other, or none. */
const TEXT_TYPE = /^\s*(text\/[^;\s]+|application\/(json|xml|javascript))\s*(;|$)/i;

/**
 * A request body as API Gateway puts it in the event: absent when there is none, text for a text
 * type, else base64 with `isBase64Encoded` (curl's `-d` and YAML included), so a handler run by the
 * local cloud decodes exactly what it decodes when deployed.
 */
export function apiGatewayBody(text: string, contentType: string | undefined): Pick<APIGatewayProxyEventV2, 'body' | 'isBase64Encoded'> {
  if (text === '') return { isBase64Encoded: false };
  if (contentType !== undefined && TEXT_TYPE.test(contentType)) return { body: text, isBase64Encoded: false };
  return { body: Buffer.from(text, 'utf8').toString('base64'), isBase64Encoded: true };
}
