import { z } from 'zod';

/**
 * A small typed client for the region manager routes (docs/api.md). Answers are parsed against
 * the contract's shapes, so an e2e test also checks what users rely on; unknown extra fields pass.
 */

const isoTime = z.iso.datetime({ offset: true });

export const errorBodySchema = z.object({
  error: z.object({ code: z.string(), message: z.string().min(1), details: z.unknown().optional() }),
});
export type ErrorBody = z.infer<typeof errorBodySchema>;

const submittedWorkflow = z.object({ workflowId: z.string(), workerId: z.string(), token: z.string().min(1) });
export const submittedJobSchema = z.object({
  jobId: z.string(),
  status: z.literal('RUNNING'),
  strategy: z.enum(['local_authority', 'gate_coordinated']),
  fenceToken: z.number().int(),
  deadlineAt: isoTime,
  workflows: z.array(submittedWorkflow),
});
export type SubmittedJob = z.infer<typeof submittedJobSchema>;

const jobStatus = z.enum(['RUNNING', 'COMPLETED', 'FAILED', 'CANCELLED', 'TIMED_OUT']);
export type JobStatus = z.infer<typeof jobStatus>;

export const jobSchema = z.object({
  jobId: z.string(),
  status: jobStatus,
  strategy: z.enum(['local_authority', 'gate_coordinated']),
  fenceToken: z.number().int(),
  timeoutReason: z.string().optional(),
  deadlineAt: isoTime.optional(),
  finishedAt: isoTime.optional(),
  timeoutTracking: z.object({
    startedAt: isoTime,
    lastProgressAt: isoTime,
    timeoutSeconds: z.number(),
    stuckThresholdSeconds: z.number(),
    totalExtensionsGranted: z.number(),
    effectiveDeadlineAt: isoTime,
    locallyTimedOut: z.boolean(),
    globallyTimedOut: z.boolean(),
  }),
  workflows: z.array(
    z.object({
      workflowId: z.string(),
      workerId: z.string(),
      state: z.enum(['running', 'completed', 'failed', 'cancelled']),
      lastProgressAt: isoTime.optional(),
      lastHeartbeatAt: isoTime.optional(),
      progress: z.number().optional(),
      step: z.string().optional(),
    }),
  ),
});
export type JobView = z.infer<typeof jobSchema>;

export const progressAnswerSchema = z.object({
  status: jobStatus,
  cancel: z.boolean(),
  deadlineAt: isoTime,
  progressed: z.boolean(),
  stuckAt: isoTime.optional(),
});
export type ProgressAnswer = z.infer<typeof progressAnswerSchema>;

export const extensionAnswerSchema = z.object({
  granted: z.boolean(),
  extensionSeconds: z.number(),
  newDeadline: isoTime,
  remainingExtensions: z.number().int(),
  denialReason: z.string().optional(),
});
export type ExtensionAnswer = z.infer<typeof extensionAnswerSchema>;

export const cancelAnswerSchema = z.object({ status: jobStatus });
export const clockViewSchema = z.object({ mode: z.enum(['system', 'virtual']), now: z.number(), nowIso: isoTime });
export type ClockView = z.infer<typeof clockViewSchema>;
export const takeoverAnswerSchema = z.object({ fenceToken: z.number().int() });
export const workerFailureAnswerSchema = z.object({ workerId: z.string(), status: z.literal('failed'), jobsUpdated: z.number().int() });
export const completeAnswerSchema = z.object({}).loose();

export const localEventsSchema = z.object({
  counts: z.record(z.string(), z.number()),
  events: z.array(z.object({ origin: z.string(), at: z.number(), detailType: z.string(), detail: z.record(z.string(), z.unknown()) })),
});
export type LocalEvents = z.infer<typeof localEventsSchema>;

export interface SubmitJobRequest {
  jobId?: string;
  timeoutSeconds: number;
  stuckThresholdSeconds?: number;
  workflows: Array<{ workflowId: string; workerId: string }>;
}

export interface ExtensionRequest {
  reason: 'long_workflow' | 'gc_pause' | 'resource_contention';
  currentProgress: number;
  estimatedCompletion?: string;
  activeWorkflowCount?: number;
}

/** An answer: the parsed body on 2xx, the contract's error body otherwise. */
export type ApiResult<T> = { ok: true; status: number; body: T } | { ok: false; status: number; body: ErrorBody };

export class VigilClient {
  constructor(readonly baseUrl: string) {}

  submitJob(body: SubmitJobRequest): Promise<ApiResult<SubmittedJob>> {
    return this.call(submittedJobSchema, 'POST', '/jobs', JSON.stringify(body));
  }

  getJob(jobId: string): Promise<ApiResult<JobView>> {
    return this.call(jobSchema, 'GET', `/jobs/${encodeURIComponent(jobId)}`);
  }

  reportProgress(
    jobId: string,
    workflowId: string,
    body: { workerId: string; progress?: number; step?: string | number },
    token: string | undefined,
  ): Promise<ApiResult<ProgressAnswer>> {
    return this.call(progressAnswerSchema, 'POST', workflowPath(jobId, workflowId, 'progress'), JSON.stringify(body), token);
  }

  complete(
    jobId: string,
    workflowId: string,
    body: { workerId: string; outcome: 'completed' | 'failed' },
    token: string | undefined,
  ): Promise<ApiResult<Record<string, unknown>>> {
    return this.call(completeAnswerSchema, 'POST', workflowPath(jobId, workflowId, 'complete'), JSON.stringify(body), token);
  }

  cancel(jobId: string, body: { reason?: string } = {}): Promise<ApiResult<{ status: JobStatus }>> {
    return this.call(cancelAnswerSchema, 'POST', `/jobs/${encodeURIComponent(jobId)}/cancel`, JSON.stringify(body));
  }

  takeOver(jobId: string): Promise<ApiResult<{ fenceToken: number }>> {
    return this.call(takeoverAnswerSchema, 'POST', `/jobs/${encodeURIComponent(jobId)}/takeover`);
  }

  reportWorkerFailure(workerId: string): Promise<ApiResult<z.infer<typeof workerFailureAnswerSchema>>> {
    return this.call(workerFailureAnswerSchema, 'POST', `/workers/${encodeURIComponent(workerId)}/failure`);
  }

  requestExtension(workerId: string, body: ExtensionRequest, token: string | undefined): Promise<ApiResult<ExtensionAnswer>> {
    return this.call(extensionAnswerSchema, 'POST', `/workers/${encodeURIComponent(workerId)}/extensions`, JSON.stringify(body), token);
  }

  /** Local-only: every event the local cloud published. */
  events(): Promise<ApiResult<LocalEvents>> {
    return this.call(localEventsSchema, 'GET', '/_local/events');
  }

  /** Local-only: the clock's mode (`system` or `virtual`) and time. */
  clock(): Promise<ApiResult<ClockView>> {
    return this.call(clockViewSchema, 'GET', '/_local/clock');
  }

  /**
   * Local-only, `--virtual-clock`: moves time forward by `ms`, running everything that falls due in
   * order; answers the new time once the cloud has settled (a long advance runs many sweeps: more time).
   */
  advanceClock(ms: number): Promise<number> {
    return this.moveClock({ ms });
  }

  /** Local-only, `--virtual-clock`: moves time forward to `at` (epoch ms), like `advanceClock`. */
  advanceClockTo(at: number): Promise<number> {
    return this.moveClock({ to: at });
  }

  private async moveClock(body: { ms: number } | { to: number }): Promise<number> {
    const answer = await rawRequest(this.baseUrl, 'POST', '/_local/clock/advance', JSON.stringify(body), {}, 120_000);
    return ok(contractResult(clockViewSchema, 'POST', '/_local/clock/advance', answer)).now;
  }

  /** Any request with a raw body (malformed JSON, unknown routes), answered as text. */
  raw(method: string, path: string, body?: string, headers: Record<string, string> = {}): Promise<RawAnswer> {
    return rawRequest(this.baseUrl, method, path, body, headers);
  }

  private async call<T>(schema: z.ZodType<T>, method: string, path: string, body?: string, token?: string): Promise<ApiResult<T>> {
    return contractResult(schema, method, path, await this.raw(method, path, body, token === undefined ? {} : { 'x-vigil-token': token }));
  }
}

export interface RawAnswer {
  status: number;
  /** Parsed as JSON when it is; the text otherwise, for the assertion message. */
  body: unknown;
}

/** Sends a request with a raw body to `baseUrl` + `path`; the answer's body parsed as JSON when it is. */
export async function rawRequest(
  baseUrl: string,
  method: string,
  path: string,
  body?: string,
  headers: Record<string, string> = {},
  timeoutMs = 10_000,
): Promise<RawAnswer> {
  const response = await fetch(`${baseUrl}${path}`, {
    method,
    headers: { 'content-type': 'application/json', ...headers },
    ...(body !== undefined ? { body } : {}),
    signal: AbortSignal.timeout(timeoutMs),
  });
  const text = await response.text();
  let parsed: unknown = text;
  try {
    parsed = JSON.parse(text);
  } catch {
    // not JSON: keep the text for the assertion message
  }
  return { status: response.status, body: parsed };
}

/** An answer checked against the contract: `schema` on 2xx, the contract's error body otherwise; anything else throws. */
export function contractResult<T>(schema: z.ZodType<T>, method: string, path: string, { status, body: answer }: RawAnswer): ApiResult<T> {
  if (status >= 200 && status < 300) {
    const parsed = schema.safeParse(answer);
    if (!parsed.success) throw new Error(`${method} ${path} → ${status} with a body outside the contract: ${JSON.stringify(answer)}\n${parsed.error.message}`);
    return { ok: true, status, body: parsed.data };
  }
  const parsed = errorBodySchema.safeParse(answer);
  if (!parsed.success) throw new Error(`${method} ${path} → ${status} without the contract's error body: ${JSON.stringify(answer)}`);
  return { ok: false, status, body: parsed.data };
}

const workflowPath = (jobId: string, workflowId: string, action: string) =>
  `/jobs/${encodeURIComponent(jobId)}/workflows/${encodeURIComponent(workflowId)}/${action}`;

/** The body of a 2xx answer; anything else fails with what the server said. */
export function ok<T>(result: ApiResult<T>): T {
  if (!result.ok) throw new Error(`expected a 2xx answer, got ${result.status}: ${JSON.stringify(result.body)}`);
  return result.body;
}

/** The error body of a non-2xx answer with this status; anything else fails with the answer. */
export function failed(result: ApiResult<unknown>, status: number): ErrorBody['error'] {
  if (result.ok || result.status !== status) throw new Error(`expected ${status}, got ${result.status}: ${JSON.stringify(result.body)}`);
  return result.body.error;
}
