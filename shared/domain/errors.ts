/**
 * Typed errors. Each has a machine-readable `code`; the HTTP layer maps codes to status in one place.
 * Messages say what is wrong and how to fix it.
 */
export abstract class VigilError extends Error {
  abstract readonly code: string;
  constructor(
    message: string,
    readonly details?: unknown,
  ) {
    super(message);
    this.name = new.target.name;
  }
}

export class InvalidRequestError extends VigilError {
  readonly code = 'invalid_request';
}
/** A `cursor` that is not a `nextCursor` this API gave out for the same listing (tampered, another region's, made up). */
export class CursorNotIssuedError extends InvalidRequestError {
  constructor() {
    super("The 'cursor' is not a cursor this API gave out; start again without it, or pass the previous answer's 'nextCursor' unchanged.");
  }
}
export class JobNotFoundError extends VigilError {
  readonly code = 'job_not_found';
  constructor(jobId: string) {
    super(`No job '${jobId}' in this region. Check the jobId, or submit the job first with POST /jobs.`);
  }
}
export class WorkflowNotFoundError extends VigilError {
  readonly code = 'workflow_not_found';
  constructor(jobId: string, workflowId: string) {
    super(`Job '${jobId}' has no workflow '${workflowId}'. Use a workflowId from the submission.`);
  }
}
export class RouteNotFoundError extends VigilError {
  readonly code = 'route_not_found';
}
export class JobFinishedError extends VigilError {
  readonly code = 'job_finished';
  constructor(jobId: string, status: string) {
    super(`Job '${jobId}' is already ${status}; a finished job cannot change. Submit a new job instead.`);
  }
}
/** The gate's global timeout is decided and on its way to the regions: the job is ending, its outcome not known yet. */
export class TimeoutBeingAppliedError extends VigilError {
  readonly code = 'job_finished';
  constructor(jobId: string) {
    super(
      `Job '${jobId}' is ending: the gate declared its global timeout and is applying it in every region, so it cannot be cancelled. ` +
        `GET /jobs/${jobId} shows how each region ends it.`,
    );
  }
}
export class WorkflowFinishedError extends VigilError {
  readonly code = 'workflow_finished';
}
export class SubmissionConflictError extends VigilError {
  readonly code = 'submission_conflict';
  constructor(jobId: string) {
    super(
      `Job '${jobId}' was already submitted with a different body. Resend the original body, or use a new jobId.`,
    );
  }
}
/** Whose token a call needs: a job's workflow (POST /jobs) or a pool item's attempt (its claim). */
export type TokenHolder = 'workflow' | 'attempt';

export class MissingTokenError extends VigilError {
  readonly code = 'missing_token';
  constructor(holder: TokenHolder = 'workflow') {
    super(
      holder === 'workflow'
        ? "This call needs the workflow's token in the 'x-vigil-token' header, as returned by POST /jobs."
        : "This call needs the attempt's token in the 'x-vigil-token' header, as returned by POST /pools/{poolId}/claims.",
    );
  }
}
export class InvalidTokenError extends VigilError {
  readonly code = 'invalid_token';
  constructor(holder: TokenHolder = 'workflow') {
    super(
      holder === 'workflow'
        ? "The 'x-vigil-token' header does not belong to this job, workflow and worker. Use the token POST /jobs returned for it."
        : "The 'x-vigil-token' header does not belong to this pool, item, attempt and agent. Use the token the claim of this attempt returned.",
    );
  }
}
/**
 * A token or cursor names a key this container does not hold, and it cannot read its key ring again
 * yet (it did moments ago, or the read failed): the key may have been rotated in since. Retrying
 * is safe; refusing would tell a worker with a valid token that its work is over.
 */
export class KeysRefreshingError extends VigilError {
  readonly code = 'keys_refreshing';
  /** Whole seconds, at least one: what the answer's `Retry-After` and `details` say. */
  readonly retryAfterSeconds: number;
  constructor(readonly retryAfterMs: number) {
    const retryAfterSeconds = Math.max(1, Math.ceil(retryAfterMs / 1000));
    super(
      `This region is reloading the keys tokens and cursors are signed with (one may have been rotated in moments ago), so it cannot check this one yet. Retry in ${retryAfterSeconds} s.`,
      { retryAfterSeconds },
    );
    this.retryAfterSeconds = retryAfterSeconds;
  }
}
export class UnknownRegionError extends VigilError {
  readonly code = 'unknown_region';
}
export class UpstreamUnavailableError extends VigilError {
  readonly code = 'upstream_unavailable';
}
export class RegionRefusedError extends VigilError {
  readonly code = 'region_refused';
}
