/** Vigil answered with an error: `code` is the contract's machine-readable code. */
export class VigilApiError extends Error {
  /**
   * The refusal answered a repeat of a call whose earlier try may have been applied (its answer was
   * lost: a timeout, a reset, a 5xx): a `job_finished` may then be this call's own doing.
   */
  afterUnansweredTry = false;

  constructor(
    readonly status: number,
    readonly code: string,
    message: string,
    readonly details?: unknown,
  ) {
    super(message);
    this.name = 'VigilApiError';
  }
}

/** Vigil did not answer (network error, timeout, or 5xx) after every retry. */
export class VigilUnreachableError extends Error {
  readonly code = 'unreachable';
  constructor(
    message: string,
    cause?: unknown,
  ) {
    super(message, { cause });
    this.name = 'VigilUnreachableError';
  }
}

/** Vigil did not answer within the call's whole budget (`callBudgetMs`), however many tries were left. */
export class CallBudgetSpentError extends VigilUnreachableError {
  constructor(
    message: string,
    readonly budgetMs: number,
    readonly tries: number,
  ) {
    super(message);
    this.name = 'CallBudgetSpentError';
  }
}

/**
 * A call the signer could not sign (no AWS credentials, an expired SSO session): it was never sent.
 * The fix is the caller's credentials, so it is not retried and is not an unreachable Vigil.
 */
export class RequestNotSignedError extends Error {
  readonly code = 'credentials_unavailable';
  constructor(message: string, cause: unknown) {
    super(message, { cause });
    this.name = 'RequestNotSignedError';
  }
}
