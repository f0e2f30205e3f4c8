import { randomUUID } from 'node:crypto';
import { fraction } from '../contract/manager-requests.js';
import { completeAnswer, extensionAnswer, jobAnswer, progressAnswer, type ExtensionAnswer, type ProgressAnswer } from '../contract/manager-responses.js';
import type * as z from '../validation/zod.js';
import { answeredEpochMs } from './answered-time.js';
import { anySignal, CallsInFlight } from './calls-in-flight.js';
import { heartbeatBudgetMs } from './call-budget.js';
import { watchDeadline } from './deadline-watch.js';
import { RequestNotSignedError, VigilApiError, VigilUnreachableError } from './errors.js';
import { OneBeatInFlight } from './one-beat-in-flight.js';
import { VigilClock } from './vigil-clock.js';
import { VigilHttp, type CallOptions, type VigilHttpOptions } from './vigil-http.js';

export interface WorkflowOptions extends Omit<VigilHttpOptions, 'endpoint'> {
  /** The region manager the job was submitted to. */
  endpoint: string;
  jobId: string;
  workflowId: string;
  workerId: string;
  token: string;
  /**
   * The job's stuck threshold; the heartbeat runs four times within it (at least every 30 s). When absent the SDK reads it
   * from GET /jobs/{jobId} (a client route: it needs `signer` on AWS) and falls back to 120 s.
   */
  stuckThresholdSeconds?: number;
  /** Called when a heartbeat fails; the loop keeps going, even if this throws (told once, by `process.emitWarning`). */
  onHeartbeatError?: (error: unknown) => void;
  now?: () => number;
}

export type ExtensionReason = 'long_workflow' | 'gc_pause' | 'resource_contention';

/** A progress value (a fraction 0–1), a step (text or a counter), or both. */
export type ProgressUpdate = number | string | { progress?: number; step?: string | number };

export interface WorkflowHandle {
  /** Fires when Vigil answers `cancel` (the job ended) or the deadline passed while Vigil was unreachable. */
  readonly signal: AbortSignal;
  /** The job's effective deadline as answered to the latest report sent that was answered (epoch ms on Vigil's clock: `vigilClock.toLocalMs` gives this machine's). */
  readonly deadlineAtMs: number | undefined;
  /** Vigil's clock as the workflow's answers tell it. */
  readonly vigilClock: VigilClock;
  readonly heartbeatIntervalMs: number;
  progress(update: ProgressUpdate): Promise<ProgressAnswer>;
  requestExtension(reason: ExtensionReason, currentProgress: number): Promise<ExtensionAnswer>;
  /** Records the outcome and stops the heartbeat; `signal` abandons the call (once it is no longer worth sending). */
  complete(outcome: 'completed' | 'failed', options?: { signal?: AbortSignal }): Promise<z.infer<typeof completeAnswer>>;
  /**
   * Stops the heartbeat and abandons the workflow's calls still in flight (each fails with
   * VigilUnreachableError), so none keeps the process alive waiting for a Vigil that does not answer.
   */
  stop(): void;
}

const DEFAULT_STUCK_THRESHOLD_SECONDS = 120;
/** The progress values the route takes (0, or 1e-9 to 1). */
const acceptedProgress = fraction();
/** Refusals after which no report of this workflow can ever be accepted again. */
const WORK_IS_OVER = new Set(['workflow_finished', 'job_not_found', 'invalid_token']);
/** Beats per stuck threshold: a lost beat or two still leaves the worker visibly alive. */
const BEATS_PER_THRESHOLD = 4;

/**
 * At most this long without a call: AD-26 counts a worker healthy for 30 s (the extension base) past
 * its last call, and one silent 30 s longer as failed, whose grants every job then drops when it is
 * heard again (worker-health.ts). A job with a long stuck threshold must not cost its worker its grants.
 */
const HEALTHY_SILENCE_MS = 30_000;

/** The silence after which a workflow heartbeats, from its job's stuck threshold (the cost model calls at the same rate). */
export const sdkHeartbeatMs = (stuckThresholdSeconds: number): number =>
  Math.max(250, Math.min(HEALTHY_SILENCE_MS, (stuckThresholdSeconds * 1000) / BEATS_PER_THRESHOLD));

function progressBody(workerId: string, update: ProgressUpdate) {
  if (typeof update === 'number') return { workerId, progress: update };
  if (typeof update === 'string') return { workerId, step: update };
  return { workerId, ...update };
}

/**
 * Starts working on a job's workflow: heartbeats at a cadence that follows the job's stuck threshold
 * and turns Vigil's `cancel` answer into an AbortSignal, so a worker learns to stop.
 */
export async function startWorkflow(options: WorkflowOptions): Promise<WorkflowHandle> {
  const now = options.now ?? Date.now;
  const http = new VigilHttp({ ...options, vigilClock: options.vigilClock ?? new VigilClock(now) });
  const { vigilClock } = http;
  const { jobId, workflowId, workerId, token } = options;
  const base = `/jobs/${encodeURIComponent(jobId)}`;
  const controller = new AbortController();
  const inFlight = new CallsInFlight();
  let deadlineAtMs: number | undefined;
  let lastProgress: number | undefined;

  const stuckThresholdSeconds = options.stuckThresholdSeconds ?? (await readStuckThreshold(http, base)) ?? DEFAULT_STUCK_THRESHOLD_SECONDS;
  const heartbeatIntervalMs = sdkHeartbeatMs(stuckThresholdSeconds);

  // An answer to a report sent before one already answered is older news (a slow beat's, after a report
  // that learned an extension): its deadline may be one Vigil has moved since. Its `cancel` still counts.
  let reportsSent = 0;
  let heardUpTo = 0;
  const learn = (answer: ProgressAnswer, reportNumber: number): ProgressAnswer => {
    if (reportNumber > heardUpTo) {
      heardUpTo = reportNumber;
      deadlineAtMs = answeredEpochMs(answer.deadlineAt) ?? deadlineAtMs;
    }
    if (answer.cancel) controller.abort(new VigilApiError(409, 'job_finished', `Job '${jobId}' is ${answer.status}; stop working on it.`));
    else deadlineWatch.rearm();
    return answer;
  };

  // Vigil's deadline comes when Vigil's clock reads it, whatever this machine's says.
  const deadlineWatch = watchDeadline({
    deadlineAtMs: () => vigilClock.localMsOf(deadlineAtMs),
    now,
    ask: () => report({ workerId }),
    stop: () => controller.abort(new VigilUnreachableError(`The deadline of job '${jobId}' passed and Vigil did not answer: stop working on it.`)),
    signal: controller.signal,
  });

  const report = async (body: object, { callBudgetMs }: Pick<CallOptions, 'callBudgetMs'> = {}): Promise<ProgressAnswer> => {
    beatAfterSilence();
    const signal = inFlight.signal;
    const reportNumber = ++reportsSent;
    try {
      const answer = await http.call('POST', `${base}/workflows/${encodeURIComponent(workflowId)}/progress`, { body, token, signal, callBudgetMs });
      return learn(progressAnswer.parse(answer.body), reportNumber);
    } catch (error) {
      // Abandoned by stop(): it says nothing of the work.
      if (signal.aborted) throw error;
      // A finished workflow, one Vigil no longer knows, or one whose token no longer holds (its job
      // expired and the id was submitted again) has nothing left to do.
      if (error instanceof VigilApiError && WORK_IS_OVER.has(error.code)) controller.abort(error);
      // AD-34: the deadline binds even when Vigil cannot say so.
      const localDeadlineMs = vigilClock.localMsOf(deadlineAtMs);
      if (localDeadlineMs !== undefined && now() >= localDeadlineMs) controller.abort(error);
      throw error;
    }
  };

  // A beat after each interval of silence: any report answers `cancel` as a beat does, so a worker
  // that reports more often than this sends none (each is a billed call), and one that goes quiet
  // still learns to stop within the interval. One beat at a time: one due while a beat is unanswered waits for it.
  // A beat's tries end with its budget (heartbeatBudgetMs), and the beat owed by then goes at once.
  const beatBudget = { callBudgetMs: heartbeatBudgetMs(heartbeatIntervalMs, http.requestTimeoutMs) };
  const beats = new OneBeatInFlight(() =>
    inFlight.background(() => report(lastProgress === undefined ? { workerId } : { workerId, progress: lastProgress }, beatBudget), options.onHeartbeatError),
  );
  let heartbeat: NodeJS.Timeout | undefined;
  const beatAfterSilence = (): void => {
    beats.served();
    clearTimeout(heartbeat);
    if (controller.signal.aborted) return;
    heartbeat = setTimeout(() => beats.due(), heartbeatIntervalMs);
    heartbeat.unref();
  };
  const stopBeats = (): void => {
    beats.stop();
    clearTimeout(heartbeat);
  };
  controller.signal.addEventListener('abort', stopBeats, { once: true });
  // A first report right away: it marks the workflow running and learns the deadline. Refused or
  // unanswered, the caller gets the error and no handle, so no heartbeat may outlive it.
  await report({ workerId }).catch((error: unknown) => {
    stopBeats();
    deadlineWatch.stop();
    throw error;
  });

  return {
    signal: controller.signal,
    get deadlineAtMs() {
      return deadlineAtMs;
    },
    vigilClock,
    heartbeatIntervalMs,
    progress: async (update) => {
      const body = progressBody(workerId, update);
      // The beats repeat only a progress Vigil takes: one it refuses (a percent, NaN) would have every
      // later beat refused too, and the worker would no longer hear `cancel`.
      if ('progress' in body && acceptedProgress.safeParse(body.progress).success) lastProgress = body.progress;
      return report(body);
    },
    requestExtension: async (reason, currentProgress) => {
      // Every try of this call names it the same: a try whose answer was lost may have been granted,
      // and Vigil answers the next with that grant instead of deciding again (and denying it).
      const body = { reason, currentProgress, requestId: randomUUID() };
      const answer = await http.call('POST', `/workers/${encodeURIComponent(workerId)}/extensions`, { body, token, signal: inFlight.signal });
      const parsed = extensionAnswer.parse(answer.body);
      // A grant moves each of the worker's jobs by what its per-job budget allows, maybe less than
      // `extensionSeconds`: the job's own deadline is asked for. Unanswered, the older (earlier) one stands.
      if (parsed.granted) await report({ workerId }).catch(() => undefined);
      return parsed;
    },
    complete: async (outcome, { signal } = {}) => {
      stopBeats();
      deadlineWatch.stop();
      const answer = await http.call('POST', `${base}/workflows/${encodeURIComponent(workflowId)}/complete`, { body: { workerId, outcome }, token, signal: anySignal(inFlight.signal, signal) });
      return completeAnswer.parse(answer.body);
    },
    stop: () => {
      stopBeats();
      deadlineWatch.stop();
      inFlight.abandon(new Error(`workflow '${workflowId}' was stopped`));
    },
  };
}

async function readStuckThreshold(http: VigilHttp, base: string): Promise<number | undefined> {
  try {
    const answer = await http.call('GET', base);
    return jobAnswer.parse(answer.body).timeoutTracking.stuckThresholdSeconds;
  } catch (error) {
    // A worker without client credentials (403 from API Gateway, or none to sign with) heartbeats at the default cadence.
    if (error instanceof VigilApiError || error instanceof RequestNotSignedError) return undefined;
    throw error;
  }
}
