import { setTimeout as sleep } from 'node:timers/promises';
import { errorBodySchema } from '../contract/error-body.js';
import { backoffDelayMs, defaultRetryPolicy, type RetryPolicy } from './backoff.js';
import { VigilApiError, VigilUnreachableError } from './errors.js';
import type { RequestSigner } from './request-signer.js';
import { VigilClock } from './vigil-clock.js';

export interface VigilHttpOptions {
  /** Base URL of a region manager or the gate: `npm start`'s listener or the deployed API. */
  endpoint: string;
  retry?: Partial<RetryPolicy>;
  /** SigV4 for client routes on AWS; worker routes carry a token instead. */
  signer?: RequestSigner;
  requestTimeoutMs?: number;
  /** Learns Vigil's clock from every answer; one shared by the calls to one Vigil (a claim and its attempt's). */
  vigilClock?: VigilClock;
}

export interface CallOptions {
  body?: unknown;
  /** A body sent as-is instead of JSON (a pool as YAML). */
  rawBody?: { contentType: string; text: string };
  /** The workflow or attempt token, sent in `x-vigil-token`. */
  token?: string;
  /**
   * Abandons the call once aborted: the try in flight is cut, none follows, and the call fails with
   * VigilUnreachableError naming the abort's reason. Nothing then keeps the process waiting for it.
   */
  signal?: AbortSignal;
}

export interface Answer {
  status: number;
  body: unknown;
}

/** The longest `Retry-After` a throttled call waits for before its next try. */
const MAX_RETRY_AFTER_MS = 30_000;

/**
 * Calls Vigil. Retries network errors, 5xx and 429 (API Gateway's throttling, waiting at least its
 * `Retry-After`) with backoff and jitter (Vigil's writes are idempotent or fenced, so a repeat is
 * harmless); never retries another 4xx, which would fail again.
 */
export class VigilHttp {
  readonly endpoint: string;
  /** Vigil's clock as its answers tell it: its times are turned into this machine's with it. */
  readonly vigilClock: VigilClock;
  private readonly retry: RetryPolicy;

  constructor(private readonly options: VigilHttpOptions) {
    this.endpoint = options.endpoint.replace(/\/+$/, '');
    this.retry = { ...defaultRetryPolicy, ...options.retry };
    this.vigilClock = options.vigilClock ?? new VigilClock();
  }

  async call(method: 'GET' | 'POST', path: string, options: CallOptions = {}): Promise<Answer> {
    const { signal } = options;
    let lastFailure = 'no attempt made';
    let retryAfterMs = 0;
    // A try that failed without a refusal (network, timeout, 5xx) may still have been applied; a 429 was not.
    let unanswered = false;
    for (let attempt = 0; attempt <= this.retry.retries; attempt++) {
      if (attempt > 0) {
        const delayMs = Math.max(retryAfterMs, backoffDelayMs(this.retry, attempt - 1));
        await sleep(delayMs, undefined, signal ? { signal } : {}).catch(() => undefined);
      }
      if (signal?.aborted) break;
      let response: Response;
      let text: string;
      const sentAtMs = this.vigilClock.now();
      try {
        // The answer's body is part of the try: a timeout or an abandon while it is read leaves the call unanswered.
        response = await this.send(method, path, options);
        text = await response.text();
      } catch (error) {
        lastFailure = reasonText(error);
        unanswered = true;
        continue;
      }
      this.vigilClock.observe(response.headers.get('date'), sentAtMs);
      const body: unknown = text === '' ? undefined : parseJson(text);
      if (response.status < 400) return { status: response.status, body };
      const parsed = errorBodySchema.safeParse(body);
      const error = parsed.success
        ? new VigilApiError(response.status, parsed.data.error.code, parsed.data.error.message, parsed.data.error.details)
        : new VigilApiError(response.status, 'http_error', `${method} ${path} answered ${response.status}: ${text.slice(0, 200)}`);
      if (response.status < 500 && response.status !== 429) {
        error.afterUnansweredTry = unanswered;
        throw error;
      }
      lastFailure = `${response.status} ${error.code}`;
      if (response.status !== 429) unanswered = true;
      retryAfterMs = Math.min(MAX_RETRY_AFTER_MS, retryAfterSeconds(response.headers.get('retry-after')) * 1000);
    }
    const why = signal?.aborted ? reasonText(signal.reason) : lastFailure;
    throw new VigilUnreachableError(`Vigil at ${this.endpoint} did not answer ${method} ${path} (${why}). Is it running?`);
  }

  private async send(method: string, path: string, options: CallOptions): Promise<Response> {
    const url = new URL(`${this.endpoint}${path}`);
    const headers: Record<string, string> = { accept: 'application/json' };
    const body = options.rawBody?.text ?? (options.body === undefined ? undefined : JSON.stringify(options.body));
    if (body !== undefined) headers['content-type'] = options.rawBody?.contentType ?? 'application/json';
    if (options.token !== undefined) headers['x-vigil-token'] = options.token;
    const signed = this.options.signer ? await this.options.signer({ method, url, headers, ...(body !== undefined ? { body } : {}) }) : headers;
    const timeout = AbortSignal.timeout(this.options.requestTimeoutMs ?? 10_000);
    return fetch(url, {
      method,
      headers: signed,
      ...(body !== undefined ? { body } : {}),
      signal: options.signal ? AbortSignal.any([options.signal, timeout]) : timeout,
    });
  }
}

const reasonText = (reason: unknown): string => (reason instanceof Error ? reason.message : String(reason));

function parseJson(text: string): unknown {
  try {
    return JSON.parse(text);
  } catch {
    return text;
  }
}

/** `Retry-After` in seconds (0 when absent or an HTTP date, which API Gateway does not send). */
function retryAfterSeconds(header: string | null): number {
  const seconds = Number(header ?? '');
  return Number.isFinite(seconds) && seconds > 0 ? seconds : 0;
}
