import type { ForwardedRequest, Forwarder, RawReply } from './console-routes.js';

/**
 * How long a listener has to answer a forwarded call. A listener that holds the connection would
 * otherwise hold the page's poll with it; API Gateway itself gives up on an integration at 30 s.
 */
export const FORWARD_TIMEOUT_MS = 10_000;

/**
 * The forwarder's answer, or the signal's TimeoutError once `ms` passed. The forwarder gets the
 * signal to drop the request (fetch does); one that ignores it is left behind, its answer unused.
 */
export function forwardWithin(forward: Forwarder, request: ForwardedRequest, ms: number): Promise<RawReply> {
  const signal = AbortSignal.timeout(ms);
  const gaveUp = new Promise<never>((_, reject) => signal.addEventListener('abort', () => reject(signal.reason), { once: true }));
  return Promise.race([forward({ ...request, signal }), gaveUp]);
}

export const isTimeout = (error: unknown): boolean => error instanceof DOMException && error.name === 'TimeoutError';
