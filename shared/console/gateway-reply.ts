import { gatewayAnswer } from '../sdk/gateway-answers.js';
import type { RawReply } from './console-routes.js';

/**
 * A forwarded answer API Gateway (or a function URL) gave itself, `{"message": "Forbidden"}`, put in
 * the contract's error shape with what it means and how to fix it (sdk/gateway-answers.ts), so the
 * page says "403 forbidden: … check AWS_PROFILE …" instead of a bare "HTTP 403". Any other answer,
 * Vigil's own included, is handed on as it came.
 */
export function withGatewayAnswerExplained(reply: RawReply, call: string): RawReply {
  if (reply.statusCode < 400 || !reply.contentType.toLowerCase().includes('json')) return reply;
  let body: unknown;
  try {
    body = JSON.parse(reply.body);
  } catch {
    return reply;
  }
  const explained = gatewayAnswer(reply.statusCode, body, call);
  if (!explained) return reply;
  return { ...reply, contentType: 'application/json', body: JSON.stringify({ error: explained }) };
}
