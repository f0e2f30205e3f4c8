import * as z from '../../validation/zod.js';
import { VigilError } from '../../domain/errors.js';
import type { TimerRequest } from '../../ports/timers.js';

/** The body of a timer message on the SQS timer queue, whether sent directly or by a schedule. */
const timerMessageSchema = z.object({
  scope: z.enum(['job', 'gate', 'pool']),
  // A pool item's timer id is `poolId/itemId`: two ids of up to 128 characters (a collection's, `poolId/#collection#<uuid>`, is shorter).
  jobId: z.string().check(z.minLength(1), z.maxLength(257)),
  fenceToken: z.int().check(z.gte(0)),
  dueAt: z.int().check(z.gte(0)),
});

export class InvalidTimerMessageError extends VigilError {
  readonly code = 'invalid_timer_message';
}

export function timerMessageBody(timer: TimerRequest): string {
  const { scope, jobId, fenceToken, dueAt } = timer;
  return JSON.stringify({ scope, jobId, fenceToken, dueAt });
}

/** Parses a received SQS message body; throws InvalidTimerMessageError naming what is wrong. */
export function parseTimerMessage(body: string): TimerRequest {
  let json: unknown;
  try {
    json = JSON.parse(body);
  } catch {
    throw new InvalidTimerMessageError(`Timer message is not JSON: ${body.slice(0, 200)}`);
  }
  const parsed = timerMessageSchema.safeParse(json);
  if (!parsed.success) {
    const problems = parsed.error.issues.map((issue) => `${issue.path.join('.') || '(body)'}: ${issue.message}`);
    throw new InvalidTimerMessageError(`Timer message is invalid: ${problems.join('; ')}`, parsed.error.issues);
  }
  return parsed.data;
}
