import { InvalidRequestError, VigilError } from '../domain/errors.js';
import { errorResponse } from '../http/error-response.js';
import * as z from '../validation/zod.js';
import type { LocalClock } from './local-clock.js';

/** One advance at most this far: each sweep interval it crosses runs a sweep, so a day would take minutes. */
export const MAX_ADVANCE_MS = 3_600_000;

class VirtualClockOffError extends VigilError {
  readonly code = 'virtual_clock_off';
}

const advanceBody = z.union([
  // Whole milliseconds: stored times (and the cursors made of them) are whole milliseconds, as Date.now() is.
  z.strictObject({ ms: z.int().check(z.gte(0, 'ms must be ≥ 0'), z.lte(MAX_ADVANCE_MS, `advance at most ${MAX_ADVANCE_MS} ms (1 h) per call; call again`)) }),
  z.strictObject({ to: z.int().check(z.gte(0, 'to is an epoch time in ms')) }),
]);

/**
 * `GET /_local/clock` (the mode and the time) and `POST /_local/clock/advance` with `{"ms": n}` or
 * `{"to": epochMs}`: moves a `--virtual-clock` cloud's time, runs everything that falls due in order,
 * and answers once settled (see VirtualClock). Refused with a 409 on the system clock.
 */
export function clockRoutes(clock: LocalClock) {
  return async (method: string, path: string, body: string) => {
    if (method === 'GET' && path === '/_local/clock') return { statusCode: 200, body: clockView(clock, clock.scheduler.now()) };
    if (method !== 'POST' || path !== '/_local/clock/advance') return undefined;
    try {
      if (!clock.advance) {
        throw new VirtualClockOffError('This Vigil runs on the system clock, which cannot be advanced. Start it with `npm start -- --virtual-clock` to move time by hand.');
      }
      const request = advanceBody.parse(body ? JSON.parse(body) : {});
      const from = clock.scheduler.now();
      if ('to' in request && (request.to < from || request.to - from > MAX_ADVANCE_MS)) {
        throw new InvalidRequestError(`to must be between now (${from}) and now + ${MAX_ADVANCE_MS} ms; time never goes back`);
      }
      return { statusCode: 200, body: clockView(clock, await clock.advance(request)) };
    } catch (error) {
      return errorResponse(refusalOf(error));
    }
  };
}

const clockView = (clock: LocalClock, now: number) => ({ mode: clock.virtual ? 'virtual' : 'system', now, nowIso: new Date(now).toISOString() });

/** A body that is not JSON, or a `to` another advance passed while this one waited its turn: the caller's mistake, a 400. */
function refusalOf(error: unknown): unknown {
  if (error instanceof SyntaxError) return new InvalidRequestError('The body is not JSON: send {"ms": <milliseconds>} or {"to": <epoch ms>}.');
  if (error instanceof RangeError) return new InvalidRequestError(`${error.message}; the clock did not move. Read GET /_local/clock and ask again.`);
  return error;
}
