import { randomUUID } from 'node:crypto';
import { claimAnswer, commandStartAnswer, heartbeatAnswer, type Claim, type HeartbeatAnswer } from '../contract/pool-responses.js';
import { setLongTimeout, type LongTimeout } from '../ports/long-timeout.js';
import { CHECKPOINT_REQUEST_BEAT_SLACK_MS, checkpointIntervalMs, sdkAgentHeartbeatMs, slowerThanPoolWarning } from './agent-heartbeat.js';
import { answeredEpochMs } from './answered-time.js';
import { backoffDelayMs, defaultRetryPolicy } from './backoff.js';
import { waitUnlessAborted } from './call-timers.js';
import { anySignal, CallsInFlight } from './calls-in-flight.js';
import { heartbeatBudgetMs } from './call-budget.js';
import { CallbackFaults } from './callback-faults.js';
import { watchDeadline } from './deadline-watch.js';
import { VigilApiError, VigilUnreachableError } from './errors.js';
import { OneBeatInFlight } from './one-beat-in-flight.js';
import type { VigilClock } from './vigil-clock.js';
import { VigilHttp, type CallOptions, type VigilHttpOptions } from './vigil-http.js';

export interface AgentOptions extends VigilHttpOptions {
  /**
   * Where the attempt's own calls go (heartbeat, commands, checkpoints, outcome): a region's
   * `WorkerUrl` when it is deployed with one. Claims always go to `endpoint`. Default: `endpoint`.
   */
  workerEndpoint?: string;
  /**
   * How often the attempt heartbeats; at most half the checkpoint interval (`sdkAgentHeartbeatMs`).
   * Default: the cadence the pool needs, as the claim answers it (`heartbeatIntervalSeconds`: a third of
   * the lesser of its cleanup grace period and checkpoint timeout), or 5 s from a Vigil that does not say.
   */
  heartbeatIntervalMs?: number;
  /** Called when a heartbeat fails; the loop keeps going, even if this throws (told once, by `process.emitWarning`). */
  onHeartbeatError?: (error: unknown) => void;
  /**
   * Told once per pool and interval when `heartbeatIntervalMs` is slower than the pool's cadence (it is
   * still used). Default: `process.emitWarning` (stderr, unless Node runs with `--no-warnings`).
   */
  onWarning?: (message: string) => void;
  /**
   * How long `claim` repeats one claim while Vigil answers `busy` or nothing. Default 35 s
   * (CLAIM_PATIENCE_MS), past Vigil's 30 s takeover of an abandoned claim: a shorter one gives up on a
   * claim whose item then stays taken until that takeover.
   */
  claimPatienceMs?: number;
}

/**
 * Why an attempt must stop: Vigil said `terminate`; SIGKILL comes at `terminateByMs`. Stopped without
 * Vigil's word, its `cause` says why: a refusal (VigilApiError) or no answer at the deadline
 * (VigilUnreachableError).
 */
export class TerminateRequest extends Error {
  constructor(
    readonly terminateByMs: number | undefined,
    message = 'Vigil asked this attempt to terminate',
    cause?: VigilApiError | VigilUnreachableError,
  ) {
    super(message, cause === undefined ? undefined : { cause });
    this.name = 'TerminateRequest';
  }
}

export interface AttemptHandle {
  readonly claim: Claim;
  readonly poolId: string;
  readonly agentId: string;
  /** Fires on `terminate`; its reason is a TerminateRequest. */
  readonly signal: AbortSignal;
  /**
   * The latest deadlines Vigil gave (epoch ms on Vigil's clock, as answered), kept so they can be
   * enforced while it is unreachable: `vigilClock.toLocalMs` says when they come on this machine's.
   */
  readonly deadlineAtMs: number | undefined;
  readonly terminateByMs: number | undefined;
  /** Vigil's clock as the attempt's answers tell it. */
  readonly vigilClock: VigilClock;
  heartbeat(): Promise<HeartbeatAnswer>;
  checkpoint(state: unknown, progress?: number): Promise<void>;
  /**
   * Called once per checkpoint request Vigil opens, until a checkpoint answers it. It may return a
   * promise (`() => attempt.checkpoint(state)`): a throw or a rejection is told once by `process.emitWarning`.
   */
  onCheckpointRequested(callback: () => unknown): void;
  /** Called when an open checkpoint request closes unanswered (a miss): Vigil no longer waits for it. */
  onCheckpointRequestClosed(callback: () => unknown): void;
  // These four take a `signal` that abandons the call (once it is no longer worth sending).
  startCommand(index: number, type: string, options?: CallSignal): Promise<{ deadlineAtMs: number | undefined }>;
  finishCommand(index: number, outcome: 'succeeded' | 'failed', options?: CallSignal): Promise<void>;
  complete(outcome: 'succeeded' | 'failed', result?: unknown, options?: CallSignal): Promise<void>;
  terminated(cleanup: 'completed' | 'failed', partialResult?: unknown, options?: CallSignal): Promise<void>;
  /**
   * Stops the heartbeat loop and abandons the attempt's calls still in flight (each fails with
   * VigilUnreachableError), so none keeps the process alive waiting for a Vigil that does not answer.
   */
  stop(): void;
}

export interface CallSignal {
  signal?: AbortSignal;
}

/**
 * How long one claim is repeated: past the 30 s after which Vigil takes over a claim whose first
 * request never finished, so a repeat either gets that claim's item or takes the item in its stead.
 */
const CLAIM_PATIENCE_MS = 35_000;
/** Heartbeat refusals no later call of the attempt can get past: 401/403 its token, 404 its pool or item, 409 stale. */
const ATTEMPT_IS_OVER: ReadonlySet<number> = new Set([401, 403, 404, 409]);

/** The slow-heartbeat warnings already given in this process: once per endpoint, pool and pair of intervals, not per item. */
const warned = new Set<string>();

function warnIfSlowerThanPool(options: AgentOptions, poolId: string, claimed: Claim): void {
  const warning = slowerThanPoolWarning(claimed, options.heartbeatIntervalMs);
  if (warning === undefined) return;
  const key = JSON.stringify([options.endpoint, poolId, options.heartbeatIntervalMs, claimed.heartbeatIntervalSeconds, claimed.checkpointIntervalSeconds]);
  if (warned.has(key)) return;
  warned.add(key);
  const message = `Pool '${poolId}': ${warning}`;
  if (options.onWarning) options.onWarning(message);
  else process.emitWarning(message, { type: 'VigilWarning', code: 'VIGIL_HEARTBEAT_SLOWER_THAN_POOL' });
}

/**
 * Claims one item of `poolId`; undefined when none is available (204). Every repeat carries the same
 * `claimId` (a new one per call unless given), so a claim whose answer was lost (a 504, a timeout)
 * gets the attempt it took back; while its first request is still being answered (503 `busy`) or
 * Vigil does not answer, it is repeated for up to 35 s (`claimPatienceMs`). A 409 `stale_attempt` says the attempt it
 * took has ended: claim again (with a new id).
 */
export async function claim(
  options: AgentOptions,
  poolId: string,
  agentId: string,
  kind: 'agent' | 'expert' = 'agent',
  claimId: string = randomUUID(),
): Promise<AttemptHandle | undefined> {
  const http = new VigilHttp(options);
  const body = { agentId, kind, claimId };
  // Monotonic, as a call's budget: a wall clock stepped back by NTP would stretch the patience by that step.
  const started = performance.now();
  const patienceMs = options.claimPatienceMs ?? CLAIM_PATIENCE_MS;
  for (let repeat = 0; ; repeat++) {
    let answer;
    try {
      // The whole claim keeps its patience: a repeat's tries end with it (but one try at least), so a Vigil that holds calls unanswered does not stretch it by a call's tries.
      const callBudgetMs = Math.max(patienceMs - (performance.now() - started), http.requestTimeoutMs);
      answer = await http.call('POST', `/pools/${encodeURIComponent(poolId)}/claims`, { body, callBudgetMs });
    } catch (error) {
      if (!(error instanceof VigilUnreachableError) || performance.now() - started >= patienceMs) throw error;
      // On the global setTimeout (call-timers.ts), as a call's own waits: fake timers drive a claim's repeats too.
      await waitUnlessAborted(backoffDelayMs(defaultRetryPolicy, repeat), undefined);
      continue;
    }
    if (answer.status === 204 || answer.body === undefined) return undefined;
    // The attempt's calls carry its token; the function URL takes no signature.
    const attemptHttp = options.workerEndpoint ? new VigilHttp({ ...options, endpoint: options.workerEndpoint, signer: undefined, vigilClock: http.vigilClock }) : http;
    return startAttempt(attemptHttp, options, poolId, agentId, claimAnswer.parse(answer.body));
  }
}

function startAttempt(http: VigilHttp, options: AgentOptions, poolId: string, agentId: string, claimed: Claim): AttemptHandle {
  const base = `/pools/${encodeURIComponent(poolId)}/items/${encodeURIComponent(claimed.itemId)}`;
  const who = { agentId, attempt: claimed.attempt };
  const faults = new CallbackFaults();
  const inFlight = new CallsInFlight(faults);
  const post = (path: string, body: object = {}, options: CallSignal & Pick<CallOptions, 'callBudgetMs'> = {}) =>
    http.call('POST', `${base}${path}`, { body: { ...who, ...body }, token: claimed.token, signal: anySignal(inFlight.signal, options.signal), callBudgetMs: options.callBudgetMs });
  const controller = new AbortController();
  const { vigilClock } = http;
  let deadlineAtMs = answeredEpochMs(claimed.deadlineAt);
  let terminateByMs: number | undefined;
  let checkpointOpen = false;
  // A beat's answer says what Vigil knew when it read the beat: one answered after a later call was
  // heard (a checkpoint, another beat) may be older news, and must not reopen or close the request.
  // Beats are numbered as they go, a checkpoint as it is answered (a beat in flight meanwhile may have been read before it).
  let callsNumbered = 0;
  let heardUpTo = 0;
  const checkpointCallbacks: Array<() => unknown> = [];
  const closedCallbacks: Array<() => unknown> = [];

  // The last deadline Vigil gave binds even while Vigil does not answer (contract, v2), when Vigil's clock reads it.
  const deadlineWatch = watchDeadline({
    deadlineAtMs: () => vigilClock.localMsOf(deadlineAtMs),
    now: vigilClock.now,
    ask: () => heartbeat(),
    stop: () => {
      const unanswered = new VigilUnreachableError(`Vigil did not answer at the deadline of item '${claimed.itemId}'.`);
      controller.abort(new TerminateRequest(undefined, `The deadline of item '${claimed.itemId}' passed and Vigil did not answer: stop working on it.`, unanswered));
    },
    signal: controller.signal,
  });
  // A stale attempt, an item or pool Vigil no longer knows, or a token it no longer takes: the attempt
  // is over, nothing it does counts any more (whoever asked: the beat, the deadline watch, the runner).
  const attemptOverOn = (error: unknown): never => {
    if (error instanceof VigilApiError && ATTEMPT_IS_OVER.has(error.status)) {
      controller.abort(new TerminateRequest(undefined, `Vigil refused this attempt's heartbeat (${error.code}): stop working on it.`, error));
      // A later beat would be refused the same way, and told to onHeartbeatError each time.
      beats.stop();
    }
    throw error;
  };
  const heartbeat = async (budget: Pick<CallOptions, 'callBudgetMs'> = {}): Promise<HeartbeatAnswer> => {
    const beatNumber = ++callsNumbered;
    const answer = heartbeatAnswer.parse((await post('/heartbeat', {}, budget).catch(attemptOverOn)).body);
    deadlineAtMs = answeredEpochMs(answer.deadlineAt) ?? deadlineAtMs;
    deadlineWatch.rearm();
    const overtaken = beatNumber < heardUpTo;
    if (!overtaken) heardUpTo = beatNumber;
    if (answer.action === 'terminate') {
      terminateByMs = answeredEpochMs(answer.terminateBy);
      controller.abort(new TerminateRequest(terminateByMs));
    } else if (overtaken) {
      // Older news than a call already heard: the request stands as that call left it.
    } else if (answer.action === 'checkpoint' && !checkpointOpen) {
      checkpointOpen = true;
      for (const callback of checkpointCallbacks) faults.run('onCheckpointRequested', callback);
    } else if (answer.action === 'continue' && checkpointOpen) {
      // The request closed unanswered (a miss): the next one is news again.
      checkpointOpen = false;
      for (const callback of closedCallbacks) faults.run('onCheckpointRequestClosed', callback);
    }
    return answer;
  };

  const checkpointMs = checkpointIntervalMs(claimed);
  const intervalMs = sdkAgentHeartbeatMs(claimed, options.heartbeatIntervalMs);
  warnIfSlowerThanPool(options, poolId, claimed);
  // One beat at a time: one due while a beat is unanswered goes once it settles; a beat's tries end
  // with its budget (heartbeatBudgetMs), and the beat owed by then goes at once.
  const beatBudget = { callBudgetMs: heartbeatBudgetMs(intervalMs, http.requestTimeoutMs) };
  const beats = new OneBeatInFlight(() => inFlight.background(() => heartbeat(beatBudget), options.onHeartbeatError));
  const beat = () => beats.due();
  const loop = setInterval(beat, intervalMs);
  loop.unref();
  // A checkpoint request opens every interval from the claim and stays open only
  // `checkpoint_timeout_secs`, which may be shorter than the heartbeat: one beat just after each
  // opening learns of it in time, whatever the heartbeat interval. Measured from this answer, which
  // comes after Vigil's claim, so the beat is never before the opening (one due while a beat is in
  // flight goes when it settles: that one may have been read before the opening).
  const claimedAt = Date.now();
  let requestBeat: LongTimeout | undefined;
  const beatAtRequest = (n: number) => {
    // A pool's interval may be up to a year, longer than setTimeout waits.
    requestBeat = setLongTimeout(
      () => {
        beat();
        // The next opening still ahead: after the wall clock jumped (a machine waking from sleep), the
        // openings it slept through are past, and this one beat stands for all of them.
        beatAtRequest(Math.max(n + 1, Math.floor((Date.now() - claimedAt - CHECKPOINT_REQUEST_BEAT_SLACK_MS) / checkpointMs) + 1));
      },
      claimedAt + n * checkpointMs + CHECKPOINT_REQUEST_BEAT_SLACK_MS - Date.now(),
      { ref: false },
    );
  };
  beatAtRequest(1);
  deadlineWatch.rearm();
  const stopBeats = () => {
    beats.stop();
    clearInterval(loop);
    requestBeat?.clear();
    deadlineWatch.stop();
  };
  controller.signal.addEventListener('abort', () => requestBeat?.clear(), { once: true });

  return {
    claim: claimed,
    poolId,
    agentId,
    signal: controller.signal,
    get deadlineAtMs() {
      return deadlineAtMs;
    },
    get terminateByMs() {
      return terminateByMs;
    },
    vigilClock,
    heartbeat: () => heartbeat(),
    checkpoint: async (state, progress) => {
      await post('/checkpoints', { state, ...(progress !== undefined ? { progress } : {}) });
      checkpointOpen = false;
      heardUpTo = ++callsNumbered;
    },
    onCheckpointRequested: (callback) => void checkpointCallbacks.push(callback),
    onCheckpointRequestClosed: (callback) => void closedCallbacks.push(callback),
    startCommand: async (index, type, options) => {
      const answer = commandStartAnswer.parse((await post(`/commands/${index}/start`, { type }, options)).body ?? {});
      return { deadlineAtMs: answeredEpochMs(answer.deadlineAt) };
    },
    finishCommand: async (index, outcome, options) => void (await post(`/commands/${index}/finish`, { outcome }, options)),
    complete: async (outcome, result, options) => {
      stopBeats();
      await post('/complete', { outcome, ...(result !== undefined ? { result } : {}) }, options);
    },
    terminated: async (cleanup, partialResult, options) => {
      stopBeats();
      await post('/terminated', { cleanup, ...(partialResult !== undefined ? { partialResult } : {}) }, options);
    },
    stop: () => {
      stopBeats();
      inFlight.abandon(new Error(`attempt ${claimed.attempt} of item '${claimed.itemId}' was stopped`));
    },
  };
}
