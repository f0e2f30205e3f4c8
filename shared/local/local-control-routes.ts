import type { LocalEventNetwork } from '../adapters/local/local-event-network.js';
import { networkFaultsSchema } from '../adapters/local/network-faults.js';
import { errorResponse } from '../http/error-response.js';
import { clockRoutes } from './clock-routes.js';
import type { LocalClock } from './local-clock.js';
import type { LocalMetrics } from './local-metrics.js';
import { InvalidRequestError } from '../domain/errors.js';

/**
 * Local-only routes under `/_local/`: metric counts, recently published events (and counts of all), and fault injection
 * (`POST /_local/faults` with a NetworkFaults body; `{}` clears every fault), and the clock (clock-routes.ts).
 */
export function localControlRoutes(network: LocalEventNetwork, metrics: LocalMetrics, clock: LocalClock) {
  const clockRoute = clockRoutes(clock);
  return async (method: string, path: string, body: string) => {
    if (!path.startsWith('/_local/')) return undefined;
    if (path.startsWith('/_local/clock')) return clockRoute(method, path, body);
    if (method === 'GET' && path === '/_local/metrics') return { statusCode: 200, body: metrics.snapshot() };
    if (method === 'GET' && path === '/_local/events') {
      const events = network.published.map(({ origin, event, at }) => ({ origin, at, ...event }));
      return { statusCode: 200, body: { counts: network.publishedCounts(), events } };
    }
    if (method === 'GET' && path === '/_local/faults') return { statusCode: 200, body: network.faults };
    if (method === 'POST' && path === '/_local/faults') {
      try {
        network.faults = networkFaultsSchema.parse(body ? JSON.parse(body) : {});
        return { statusCode: 200, body: network.faults };
      } catch (error) {
        const invalid = error instanceof SyntaxError ? new InvalidRequestError(`The body is not JSON (${error.message}). Send the faults as a JSON object.`) : error;
        return errorResponse(invalid);
      }
    }
    return undefined;
  };
}
