import { answeredErrorBodySchema } from '../contract/error-body.js';
import { backoffDelayMs, defaultRetryPolicy, type RetryPolicy } from './backoff.js';
import { gatewayAnswer } from './gateway-answers.js';
import { CallBudget } from './call-budget.js';
import { abortAfter, waitUnlessAborted } from './call-timers.js';
import { anySignal } from './calls-in-flight.js';
import { CallBudgetSpentError, RequestNotSignedError, VigilApiError, VigilUnreachableError } from './errors.js';
import type { OutgoingRequest, RequestSigner } from './request-signer.js';
import { VigilClock } from './vigil-clock.js';

export interface VigilHttpOptions {
  /** Base URL of a region manager or the gate: `npm start`'s listener or the deployed API. */
  endpoint: string;
  retry?: Partial<RetryPolicy>;
  /** SigV4 for client routes on AWS; worker routes carry a token instead. */
  signer?: RequestSigner;
  /** One try's timeout (default 10 s). */
  requestTimeoutMs?: number;
  /**
   * The longest a call may take, every try and every wait between them included: a try's timeout is
   * cut to what is left, and a wait (back-off, `Retry-After`) that would leave none is not waited.
   * Default: none, a call ends after its tries (5 of up to 10 s, ~52 s against a Vigil that never answers).
   */
  callBudgetMs?: number;
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
  /** This call's whole budget, instead of the client's `callBudgetMs`. */
  callBudgetMs?: number;
}

export interface Answer {
  status: number;
  body: unknown;
}

/** The longest `Retry-After` a throttled call waits for before its next try. */
const MAX_RETRY_AFTER_MS = 30_000;
const DEFAULT_REQUEST_TIMEOUT_MS = 10_000;

/**
 * Calls Vigil. Retries network errors, 5xx and 429 (API Gateway's throttling, waiting at least its
 * `Retry-After`) with backoff and jitter (Vigil's writes are idempotent or fenced, so a repeat is
 * harmless), within the call's budget when it has one; never retries another 4xx, which would fail again.
 * Never follows a redirect (a VigilApiError naming where it pointed): Vigil sends none.
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

  /** One try's timeout. */
  get requestTimeoutMs(): number {
    return this.options.requestTimeoutMs ?? DEFAULT_REQUEST_TIMEOUT_MS;
  }

  async call(method: 'GET' | 'POST', path: string, options: CallOptions = {}): Promise<Answer> {
    const { signal } = options;
    const budget = new CallBudget(options.callBudgetMs ?? this.options.callBudgetMs);
    let lastFailure = 'no attempt made';
    let retryAfterMs = 0;
    let tries = 0;
    // A try that failed without a refusal (network, timeout, 5xx) may still have been applied; a 429 was not.
    let unanswered = false;
    for (let attempt = 0; attempt <= this.retry.retries; attempt++) {
      if (signal?.aborted) break;
      if (attempt > 0) {
        const delayMs = Math.max(retryAfterMs, backoffDelayMs(this.retry, attempt - 1));
        // `Retry-After` is honoured, but never past the budget: a try it leaves no time for is not waited for.
        if (!budget.allowsTryAfter(delayMs)) throw this.budgetSpent(method, path, budget, tries, lastFailure);
        await waitUnlessAborted(delayMs, signal);
        if (signal?.aborted) break;
      }
      let response: Response;
      let text: string;
      const sentAtMs = this.vigilClock.now();
      tries++;
      try {
        ({ response, text } = await this.tryOnce(method, path, options, budget.tryTimeoutMs(this.requestTimeoutMs)));
      } catch (error) {
        if (error instanceof RequestNotSignedError) throw error;
        lastFailure = reasonText(error);
        unanswered = true;
        continue;
      }
      this.vigilClock.observe(response.headers.get('date'), sentAtMs);
      const body: unknown = text === '' ? undefined : parseJson(text);
      if (response.status < 300) return { status: response.status, body };
      if (response.status < 400) {
        const error = new VigilApiError(response.status, 'redirect_not_followed', `${method} ${path} answered ${response.status} to ${response.headers.get('location') ?? 'nowhere'}: not followed (Vigil never redirects; is ${this.endpoint} Vigil's endpoint?)`);
        error.afterUnansweredTry = unanswered;
        throw error;
      }
      const parsed = answeredErrorBodySchema.safeParse(body);
      const gateway = parsed.success ? undefined : gatewayAnswer(response.status, body, `${method} ${path}`);
      const error = parsed.success
        ? new VigilApiError(response.status, parsed.data.error.code, parsed.data.error.message, parsed.data.error.details)
        : gateway
          ? new VigilApiError(response.status, gateway.code, gateway.message)
          : new VigilApiError(response.status, 'http_error', `${method} ${path} answered ${response.status}: ${text.slice(0, 200)}`);
      if (response.status < 500 && response.status !== 429) {
        error.afterUnansweredTry = unanswered;
        throw error;
      }
      if (response.status !== 429) unanswered = true;
      retryAfterMs = Math.min(MAX_RETRY_AFTER_MS, retryAfterSeconds(response.headers.get('retry-after')) * 1000);
      lastFailure = `${response.status} ${error.code}${retryAfterMs > 0 ? ` (Retry-After ${secondsText(retryAfterMs)})` : ''}`;
    }
    if (signal?.aborted) throw new VigilUnreachableError(`Vigil at ${this.endpoint} did not answer ${method} ${path} (${reasonText(signal.reason)}). Is it running?`);
    if (budget.leftMs() <= 0) throw this.budgetSpent(method, path, budget, tries, lastFailure);
    throw new VigilUnreachableError(`Vigil at ${this.endpoint} did not answer ${method} ${path} (${triesText(tries, lastFailure)}). Is it running?`);
  }

  private budgetSpent(method: string, path: string, budget: CallBudget, tries: number, lastFailure: string): CallBudgetSpentError {
    const budgetMs = budget.budgetMs ?? Infinity;
    return new CallBudgetSpentError(
      `Vigil at ${this.endpoint} did not answer ${method} ${path} within ${secondsText(budgetMs)} (${triesText(tries, lastFailure)}). Is it running?`,
      budgetMs,
      tries,
    );
  }

  /** One try: sent, and its answer's body read, within `timeoutMs` (a timeout or an abandon while it is read leaves the call unanswered). */
  private async tryOnce(method: string, path: string, options: CallOptions, timeoutMs: number): Promise<{ response: Response; text: string }> {
    const timeout = abortAfter(timeoutMs, () => new Error(`no answer within ${secondsText(timeoutMs)}`));
    try {
      const response = await this.send(method, path, options, anySignal(timeout.signal, options.signal));
      return { response, text: await response.text() };
    } finally {
      timeout.clear();
    }
  }

  private async send(method: string, path: string, options: CallOptions, signal: AbortSignal): Promise<Response> {
    const url = new URL(`${this.endpoint}${path}`);
    const headers: Record<string, string> = { accept: 'application/json' };
    const body = options.rawBody?.text ?? (options.body === undefined ? undefined : JSON.stringify(options.body));
    if (body !== undefined) headers['content-type'] = options.rawBody?.contentType ?? 'application/json';
    if (options.token !== undefined) headers['x-vigil-token'] = options.token;
    // A call with a token is a worker's route, which the token authenticates (no IAM authorizer): a
    // worker machine needs no AWS credentials, and its token's call carries none of them.
    const signer = options.token === undefined ? this.options.signer : undefined;
    const signed = signer ? await this.signed(signer, method, path, { method, url, headers, ...(body !== undefined ? { body } : {}) }) : headers;
    // Never followed: on another host fetch drops Authorization, but not the token, the session token or the body.
    return fetch(url, { method, headers: signed, redirect: 'manual', ...(body !== undefined ? { body } : {}), signal });
  }

  /** The signer's headers; a request it cannot sign is never sent, and another try would fail the same way. */
  private async signed(signer: RequestSigner, method: string, path: string, request: OutgoingRequest): Promise<Record<string, string>> {
    try {
      return await signer(request);
    } catch (error) {
      throw new RequestNotSignedError(`${method} ${path} was not sent to ${this.endpoint}: it could not be signed (${reasonText(error)}).`, error);
    }
  }
}

/** Why a try failed: fetch's own "fetch failed" says more with its cause's code (ECONNREFUSED, …). */
function reasonText(reason: unknown): string {
  if (!(reason instanceof Error)) return String(reason);
  const code = (reason.cause as { code?: unknown } | undefined)?.code;
  return typeof code === 'string' ? `${reason.message}: ${code}` : reason.message;
}

const secondsText = (ms: number): string => `${Number((ms / 1000).toFixed(2))} s`;

const triesText = (tries: number, lastFailure: string): string => (tries === 1 ? `1 try: ${lastFailure}` : `${tries} tries, the last: ${lastFailure}`);

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
