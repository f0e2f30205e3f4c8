import * as z from '../../validation/zod.js';
import { VigilError } from '../../domain/errors.js';
import { collectionTimerId } from '../../domain/pools/pool-item.js';
import type { TimerRequest } from '../../ports/timers.js';

const LONGEST_ID = 128;
const LONGEST_TIMER_ID = collectionTimerId('p'.repeat(LONGEST_ID), 'c'.repeat(LONGEST_ID)).length;

/** The body of a timer message on the SQS timer queue, whether sent directly or by a schedule. */
const timerMessageSchema = z.object({
  scope: z.enum(['job', 'gate', 'pool']),
  // The longest timer id is a collection's, `poolId/#collection#collectionId`: two ids of up to 128 characters (a client may choose the collection's).
  jobId: z.string().check(z.minLength(1), z.maxLength(LONGEST_TIMER_ID)),
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
