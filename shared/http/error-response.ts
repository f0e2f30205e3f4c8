import { $ZodError } from 'zod/v4/core';
import { boundedFieldProblems } from '../contract/field-problems.js';
import { KeysRefreshingError, VigilError } from '../domain/errors.js';
import { VersionConflictError } from '../ports/job-store.js';

/** The one place error codes become HTTP status codes. */
export const statusByCode: Readonly<Record<string, number>> = {
  invalid_request: 400,
  unknown_region: 400,
  missing_token: 401,
  invalid_token: 403,
  job_not_found: 404,
  workflow_not_found: 404,
  route_not_found: 404,
  job_finished: 409,
  workflow_finished: 409,
  submission_conflict: 409,
  region_refused: 409,
  upstream_unavailable: 503,
  busy: 503,
  // A key rotated in moments ago that this container cannot read yet: the token may well be valid.
  keys_refreshing: 503,
  event_publish_failed: 503,
  // `vigil console` only: a call it could not sign with the operator's AWS credentials, never sent.
  credentials_unavailable: 502,
  // `vigil console` only: an upstream answer past any Vigil's size, dropped.
  upstream_answer_too_large: 502,
  // A timer message this code cannot read: never a caller's doing.
  invalid_timer_message: 500,
  pool_not_found: 404,
  item_not_found: 404,
  escalation_not_found: 404,
  collection_not_found: 404,
  pool_finished: 409,
  stale_attempt: 409,
  attempt_terminating: 409,
  command_out_of_order: 409,
  command_not_started: 409,
  too_many_commands_running: 409,
  item_not_in_dlq: 409,
  retry_conflict: 409,
  escalation_answered: 409,
  item_exists: 409,
  // Local cloud only: POST /_local/clock/advance without --virtual-clock.
  virtual_clock_off: 409,
};

export interface ErrorBody {
  error: { code: string; message: string; details?: unknown };
}

/** What an unknown top-level field most likely means, where Vigil can tell (a field of another route). */
const UNKNOWN_FIELD_HINTS: Readonly<Record<string, string>> = {
  datacenters:
    "is not a field of a region's job: a multi-region job (with datacenters) is submitted to the gate (POST /jobs on the gate's endpoint); " +
    'remove it to run the job in this region alone',
};

const unknownFieldProblem = (path: readonly PropertyKey[], key: string): string =>
  (path.length === 0 && Object.hasOwn(UNKNOWN_FIELD_HINTS, key) ? UNKNOWN_FIELD_HINTS[key] : undefined) ?? 'is not a field of this request; remove it';

export interface ErrorAnswer {
  statusCode: number;
  body: ErrorBody;
  /** `Retry-After` (seconds) where Vigil can tell when a retry may succeed: the SDK waits at least that long. */
  headers: Record<string, string>;
  unexpected: boolean;
}

/** A lost race on the same item clears in moments. */
const BUSY_RETRY_AFTER_SECONDS = 1;

const retryAfter = (seconds: number | undefined): Record<string, string> => (seconds === undefined ? {} : { 'Retry-After': String(seconds) });

function retryAfterSecondsOf(error: VigilError): number | undefined {
  if (error instanceof KeysRefreshingError) return error.retryAfterSeconds;
  return error.code === 'busy' ? BUSY_RETRY_AFTER_SECONDS : undefined;
}

export function errorResponse(error: unknown): ErrorAnswer {
  if (error instanceof $ZodError) {
    const { details, sentence } = boundedFieldProblems(error.issues, unknownFieldProblem);
    return {
      statusCode: 400,
      headers: {},
      unexpected: false,
      body: { error: { code: 'invalid_request', message: `The request is invalid: ${sentence}. Fix these fields and resend.`, details } },
    };
  }
  if (error instanceof VigilError) {
    // A code missing from the table is a gap in this file, not the caller's mistake.
    const statusCode = statusByCode[error.code];
    return {
      statusCode: statusCode ?? 500,
      headers: retryAfter(retryAfterSecondsOf(error)),
      unexpected: statusCode === undefined,
      body: { error: { code: error.code, message: error.message, ...(error.details !== undefined ? { details: error.details } : {}) } },
    };
  }
  if (error instanceof VersionConflictError) {
    // Many callers changed the same item at once and this one lost every attempt: nothing was written.
    return {
      statusCode: 503,
      headers: retryAfter(BUSY_RETRY_AFTER_SECONDS),
      unexpected: false,
      body: { error: { code: 'busy', message: 'Other requests kept changing the same job or item at the same moment, so this one changed nothing. Retry it in a moment.' } },
    };
  }
  return {
    statusCode: 500,
    headers: {},
    unexpected: true,
    body: { error: { code: 'internal_error', message: 'Vigil failed to handle this request. It is safe to retry.' } },
  };
}
