/**
 * A forwarded call could not be signed (no AWS credentials, an SSO session expired): it was never
 * sent, so the fix is the operator's credentials, not the API or its endpoint.
 */
export class CallNotSignedError extends Error {
  readonly code = 'credentials_unavailable';

  constructor(cause: unknown) {
    super(cause instanceof Error ? cause.message : String(cause), { cause });
    this.name = 'CallNotSignedError';
  }
}
