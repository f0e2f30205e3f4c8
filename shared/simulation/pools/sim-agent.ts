import { agentCall } from '../../app/pools/agent-call.js';
import { claimPoolItem } from '../../app/pools/claim-item.js';
import { getPool } from '../../app/pools/get-pool.js';
import type { ManagerDeps } from '../../app/manager-deps.js';
import type { AgentCall, HeartbeatReply } from '../../domain/pools/agent-calls.js';
import { InvalidTokenError, KeysRefreshingError, VigilError } from '../../domain/errors.js';
import { AttemptTerminatingError, ClaimEndedError, PoolFinishedError, StaleAttemptError } from '../../domain/pools/pool-errors.js';
import type { PoolItem } from '../../domain/pools/pool-item.js';
import { DEFAULT_CHECKPOINT_INTERVAL_SECS } from '../../domain/pools/pool-config.js';
import type { PoolStore } from '../../ports/pool-store.js';
import { CHECKPOINT_REQUEST_BEAT_SLACK_MS, sdkAgentHeartbeatMs, type ClaimedCadence } from '../../sdk/agent-heartbeat.js';
import { CLIENT_RETRY, NO_RETRY } from '../world/delivery.js';
import type { AgentSpec, PoolSpec } from '../world/plan.js';
import { SIM_EPOCH, type RetryPolicy, type World } from '../world/world.js';
import { checkTokenRefusal } from '../world/token-refusals.js';
import { isStaleFor, withStaleAttemptCheck } from './stale-attempt-guard.js';

/** An idle agent asks for work this often while the pool may still have some. */
const CLAIM_POLL_MS = 60_000;
/** Work of a split's subtask, whose size the plan does not know. */
const SUBTASK_WORK_MS = 30_000;
/** A late result as big as a result may be (32 KB), so an item that kept late results whole would grow fast. */
const LATE_RESULT = { summary: 'x'.repeat(32_000) };
/**
 * An agent on the SDK starts its work (`vigil run` its command) a moment after the claim's answer
 * starts its heartbeat cadence, after the command's start is answered: a beat due as the work ends
 * goes before the outcome.
 */
const SDK_WORK_START_LAG_MS = 1;
/** A late agent sends its result this many times (its retries, its restarts), past the item's cap on late results. */
const LATE_RESULT_SENDS = 5;

interface Held {
  itemId: string;
  attempt: number;
  token: string;
  commands: Array<{ index: number; type: string }>;
  /** How often this attempt beats: the cadence its claim answered, as the SDK beats (or the plan's SDK interval). */
  heartbeatMs: number;
  workMs: number;
  startedAt: number;
  /** Commands finished so far; the current one is `commands[done]`. */
  done: number;
  told: boolean;
  /** When a heartbeat of this attempt was last sent, whether or not its invocation crashed. */
  beatSentAt?: number;
  /** When a heartbeat of this attempt last got an answer (a reply or a refusal); a crashed beat answers nothing. */
  beatAnsweredAt?: number;
}

/** What `agent-learns-to-stop` reads of the attempt an agent holds while it is meant to obey. */
export interface ObedientAttempt {
  itemId: string;
  attempt: number;
  /** When the agent took it on (its answer arrived). */
  heldSince: number;
  beatSentAt: number | undefined;
  beatAnsweredAt: number | undefined;
  /** Three of its heartbeats. */
  learnsWithinMs: number;
}

type Claimed = { itemId: string; attempt: number; token: string; commands: Array<{ index: number; type: string }> } & ClaimedCadence;

/**
 * One agent of a pool, calling the agent routes' use cases as an HTTP agent would: it claims an
 * item, runs the template's commands (start, heartbeats, finish), answers checkpoint requests and
 * completes; told to terminate, it says `terminated` and claims the next. It beats at the cadence
 * each claim answers (`heartbeatIntervalSeconds`), as the SDK and `vigil run` do. Its faults: it
 * dies, is slow (three times the work), ignores terminate (works on and completes late), stops answering
 * checkpoints, or goes quiet when told to stop and sends its result minutes later.
 */
export class SimAgent {
  private held: Held | undefined;
  private stopped = false;
  private claimsSent = 0;
  /** Ticks of an older chain are dropped: a wake-up starts a new one, so an agent never runs two. */
  private chain = 0;

  constructor(
    private readonly world: World,
    private readonly pool: PoolSpec,
    private readonly spec: AgentSpec,
    private readonly deps: ManagerDeps,
    private readonly observe: PoolStore,
    private readonly untilMs: number,
  ) {}

  get agentId(): string {
    return this.spec.agentId;
  }

  /**
   * The attempt the agent works on while it is meant to obey (alive, not ignoring a terminate): what it
   * must learn to stop, when a beat of it was last sent and last answered, and how long after it
   * stopped being live the agent must have let go (three of its heartbeats). Only an answered beat can
   * teach it: a beat whose invocation crashed answers nothing, as on Lambda (the SDK hears on its next beat).
   */
  obedientAttempt(): ObedientAttempt | undefined {
    const held = this.held;
    if (!held || this.stopped || held.told) return undefined;
    const { itemId, attempt, startedAt: heldSince, beatSentAt, beatAnsweredAt } = held;
    return { itemId, attempt, heldSince, beatSentAt, beatAnsweredAt, learnsWithinMs: 3 * held.heartbeatMs };
  }

  start(): void {
    this.world.log(`agent ${this.spec.agentId} starts on ${this.pool.poolId} (${this.spec.behaviour})`);
    this.schedule(this.world.rng.int(0, 10_000));
  }

  /** The human made work available again: an idle agent asks at once. */
  wake(): void {
    if (this.held || this.stopped) return;
    this.chain++;
    this.schedule(this.world.rng.int(0, 5_000));
  }

  private schedule(delayMs: number): void {
    if (this.world.now + delayMs > this.untilMs) return;
    const chain = this.chain;
    this.world.after(delayMs, `agent ${this.spec.agentId}`, async () => {
      if (chain === this.chain) await this.tick();
    });
  }

  /** Whether the agent misbehaves so now: from its fault's start, for its length (a dead agent stays dead). */
  private faulty(behaviour: AgentSpec['behaviour']): boolean {
    const since = this.world.now - (SIM_EPOCH + this.pool.createAtMs) - this.spec.faultAfterMs;
    return this.spec.behaviour === behaviour && since >= 0 && (behaviour === 'dies' || since < this.spec.faultForMs);
  }

  private async tick(): Promise<void> {
    if (this.stopped) return;
    if (this.faulty('dies')) {
      this.world.log(`agent ${this.spec.agentId} dies`);
      this.stopped = true;
      return;
    }
    if (!this.held) return this.claim();
    await this.work(this.held);
    if (!this.stopped) this.schedule(this.held?.heartbeatMs ?? 0);
  }

  private async claim(): Promise<void> {
    let found = false;
    let movedOn = false;
    // As the SDK does: one claimId per claim, the same on every retry, so a retry gets the attempt the first try took.
    const claimId = `${this.spec.agentId}.${++this.claimsSent}`;
    await this.call('claim', 'client', CLIENT_RETRY, async () => {
      try {
        const claimed = (await this.world.invocations.answerOf(this.pool.region, claimPoolItem(this.deps, this.pool.poolId, { agentId: this.spec.agentId, kind: this.spec.kind, claimId }))) as Claimed | undefined;
        if (!claimed) return;
        found = true;
        // A claim answered twice (a redelivery) leaves the second item to its deadline: the agent holds one.
        if (this.held) return void this.world.log(`agent ${this.spec.agentId} drops a second claim (${claimed.itemId} attempt ${claimed.attempt})`);
        this.takeOn(claimed);
        // A retry's or a redelivery's answer, after the claim below had moved on (to a poll a minute
        // later): the agent starts on it now, heartbeating, instead of holding it silent until then.
        if (movedOn) await this.beginWork();
      } catch (error) {
        if (error instanceof PoolFinishedError) this.stopped = true;
        // The attempt this claim took ended before its answer arrived: nothing is held; claim anew later.
        if (error instanceof ClaimEndedError) return;
        throw error;
      }
    });
    movedOn = true;
    if (this.stopped) return;
    if (this.held) {
      await this.beginWork();
    } else if (!found && (await this.mayGetWork())) {
      this.schedule(CLAIM_POLL_MS);
    }
    // Otherwise idle until the human makes work available again (`wake`).
  }

  /** Starts on the held attempt: its first command, then heartbeats (any other pending tick is dropped). */
  private async beginWork(): Promise<void> {
    if (!this.held) return;
    this.chain++;
    await this.startCommand(this.held);
    // Let go at its first call (refused as stale or not its token): it claims again at once.
    this.schedule(this.held?.heartbeatMs ?? 0);
  }

  /**
   * Nothing to claim: ask again in a minute while the pool may still have work. Work comes back from
   * running attempts, and from an answer or a redrive whose follow-up (the split's subtasks, the
   * pool's reopening) lands after the human's call when that call crashed: a RUNNING pool may get
   * work, and a COMPLETED one holding an available item is about to run again.
   */
  private async mayGetWork(): Promise<boolean> {
    let may = true;
    await this.call('get-pool', 'client', NO_RETRY, async () => {
      const view = await this.world.invocations.answerOf(this.pool.region, getPool(this.deps, this.pool.poolId));
      may = view.status === 'RUNNING' || (view.status === 'COMPLETED' && (view.counts?.available ?? 0) > 0);
    });
    return may;
  }

  private takeOn(claimed: Claimed): void {
    const planned = this.pool.items.find((item) => item.itemId === claimed.itemId)?.workMs ?? SUBTASK_WORK_MS;
    const workMs = this.faulty('slow') ? planned * 3 : planned;
    const heartbeatMs = this.pool.sdkAgentHeartbeatMs ?? sdkAgentHeartbeatMs(claimed);
    const { itemId, attempt, token } = claimed;
    this.held = { itemId, attempt, token, commands: claimed.commands.map(({ index, type }) => ({ index, type })), heartbeatMs, workMs, startedAt: this.world.now, done: 0, told: false };
    this.world.log(`agent ${this.spec.agentId} claims ${claimed.itemId} attempt ${claimed.attempt}`);
    this.callAsTheSdk(this.held);
  }

  private async work(held: Held): Promise<void> {
    if (await this.advanceWork(held)) return;
    if (held.told) return; // ignoring terminate: works on without a word
    if (this.faulty('gives-back')) return this.giveBack(held);
    await this.heartbeat(held);
  }

  /** Finishes each command whose share of the work is done, and the attempt once all of it is: whether the agent is done with `held`. */
  private async advanceWork(held: Held): Promise<boolean> {
    const elapsed = this.world.now - held.startedAt - (this.pool.sdkAgentHeartbeatMs === undefined ? 0 : SDK_WORK_START_LAG_MS);
    const commands = Math.max(1, held.commands.length);
    // Command i's share of the work ends at (i + 1) / n of it.
    while (held.commands.length > 0 && held.done < held.commands.length && elapsed >= (held.workMs * (held.done + 1)) / commands) {
      const command = held.commands[held.done];
      held.done++;
      if (command) await this.converse(held, { type: 'command_finish', index: command.index, outcome: 'succeeded' }, NO_RETRY);
      if (this.held !== held) return true;
      await this.startCommand(held);
      if (this.held !== held) return true;
    }
    if (elapsed < held.workMs) return false;
    await this.finish(held);
    return true;
  }

  /** A heartbeat, and what its answer asks: stop, or a checkpoint. */
  private async heartbeat(held: Held): Promise<void> {
    const reply = (await this.converse(held, { type: 'heartbeat' }, NO_RETRY)) as HeartbeatReply | undefined;
    if (reply?.action === 'terminate') await this.onTerminate(held);
    else if (reply?.action === 'checkpoint' && !this.faulty('stops-checkpointing')) {
      const progress = Math.min(1, (this.world.now - held.startedAt) / held.workMs);
      await this.converse(held, { type: 'checkpoint', state: { step: held.done, at: this.world.now }, progress }, CLIENT_RETRY);
    }
  }

  /**
   * As an agent on the SDK does, its beats on their own clock beside its work (`sdkAgentHeartbeatMs`
   * on the plan): each command ends, and the outcome goes, when its share of the work is done, not
   * at the next beat; and a beat goes just after each checkpoint request opens.
   */
  private callAsTheSdk(held: Held): void {
    if (this.pool.sdkAgentHeartbeatMs === undefined) return;
    this.endWorkOnTime(held);
    this.beatAtCheckpointRequests(held);
  }

  private endWorkOnTime(held: Held): void {
    const commands = Math.max(1, held.commands.length);
    for (let share = 1; share <= commands; share++) {
      const atMs = held.startedAt + SDK_WORK_START_LAG_MS + Math.ceil((held.workMs * share) / commands);
      if (atMs > this.untilMs) return;
      this.world.at(atMs, `agent ${this.spec.agentId} works on`, async () => {
        if (this.held !== held || this.stopped || this.faulty('dies')) return;
        await this.advanceWork(held);
        // Done with it: claim the next at once, as after a beat (the beats' chain is dropped).
        if (!this.held && !this.stopped) {
          this.chain++;
          this.schedule(0);
        }
      });
    }
  }

  private beatAtCheckpointRequests(held: Held): void {
    const intervalMs = (this.pool.config.checkpoint_interval_secs ?? DEFAULT_CHECKPOINT_INTERVAL_SECS) * 1000;
    const beatAt = (n: number) => {
      const atMs = held.startedAt + n * intervalMs + CHECKPOINT_REQUEST_BEAT_SLACK_MS;
      if (atMs > this.untilMs) return;
      this.world.at(atMs, `agent ${this.spec.agentId} beats at a checkpoint request`, async () => {
        if (this.held !== held || held.told || this.stopped || this.faulty('dies')) return;
        await this.heartbeat(held);
        beatAt(n + 1);
      });
    };
    beatAt(1);
  }

  private async startCommand(held: Held): Promise<void> {
    const command = held.commands[held.done];
    if (command) await this.converse(held, { type: 'command_start', index: command.index, commandType: command.type }, NO_RETRY);
  }

  private async finish(held: Held): Promise<void> {
    this.held = undefined;
    const outcome = this.world.rng.chance(0.1) ? 'failed' : 'succeeded';
    this.world.log(`agent ${this.spec.agentId} completes ${held.itemId} attempt ${held.attempt} (${outcome}${held.told ? ', after being told to terminate' : ''})`);
    await this.send(held, { type: 'complete', outcome, result: { itemId: held.itemId, by: this.spec.agentId } }, CLIENT_RETRY);
  }

  /** Hands the item back unasked (`terminated` while its attempt runs), then claims again. */
  private async giveBack(held: Held): Promise<void> {
    this.held = undefined;
    this.world.log(`agent ${this.spec.agentId} gives back ${held.itemId} attempt ${held.attempt}`);
    await this.send(held, { type: 'terminated', cleanup: 'completed', partialResult: { step: held.done } }, CLIENT_RETRY);
  }

  /** Told to stop (a heartbeat's `terminate`, or a call refused as terminating): each behaviour as it would. */
  private async onTerminate(held: Held): Promise<void> {
    if (this.held !== held || held.told) return;
    if (this.faulty('ignores-terminate')) {
      held.told = true;
      this.world.log(`agent ${this.spec.agentId} ignores terminate on ${held.itemId} attempt ${held.attempt}`);
      return;
    }
    this.held = undefined;
    if (this.faulty('late-result')) {
      const lateMs = this.world.rng.int(60, 600) * 1000;
      this.world.log(`agent ${this.spec.agentId} goes quiet on ${held.itemId} attempt ${held.attempt}; its result comes in ${lateMs / 1000} s`);
      this.world.after(lateMs, `late result ${this.spec.agentId}`, async () => {
        for (let send = 0; send < LATE_RESULT_SENDS; send++) await this.send(held, { type: 'complete', outcome: 'succeeded', result: LATE_RESULT }, NO_RETRY);
      });
      return;
    }
    this.world.log(`agent ${this.spec.agentId} terminates ${held.itemId} attempt ${held.attempt}`);
    await this.send(held, { type: 'terminated', cleanup: 'completed', partialResult: { step: held.done } }, CLIENT_RETRY);
  }

  /** A call of the held attempt; a refusal teaches the agent: terminating → stop as told, stale or not its token (`invalid_token`) → let go. */
  private async converse(held: Held, call: AgentCall, retry: RetryPolicy): Promise<unknown> {
    const { reply, refusal } = await this.send(held, call, retry);
    if (refusal instanceof AttemptTerminatingError) await this.onTerminate(held);
    else if ((refusal instanceof StaleAttemptError || refusal instanceof InvalidTokenError) && this.held === held) {
      this.world.log(`agent ${this.spec.agentId} lets go of ${held.itemId} attempt ${held.attempt} (${refusal instanceof StaleAttemptError ? 'stale' : refusal.code})`);
      this.held = undefined;
    }
    return reply;
  }

  /**
   * One agent route call, checked by the stale-attempt guard. A refusal (a 4xx) is an answer, not a
   * failure to retry; only a crash or a 503 (`keys_refreshing`, no sooner than its Retry-After) is
   * retried. A redelivery's answer is not read.
   */
  private async send(held: Held, call: AgentCall, retry: RetryPolicy): Promise<{ reply?: unknown; refusal?: VigilError }> {
    let answer: { reply?: unknown; refusal?: VigilError } = {};
    if (call.type === 'heartbeat') held.beatSentAt = this.world.now;
    const { poolId } = this.pool;
    const answeredAsLive = () => 'reply' in answer || (answer.refusal !== undefined && (answer.refusal as VigilError & { code?: string }).code !== 'stale_attempt');
    const mustNotChange = (due: PoolItem) =>
      isStaleFor(held.attempt)(due) || (due.run?.terminating !== undefined && !['heartbeat', 'terminated', 'checkpoint'].includes(call.type));
    await this.call(call.type, 'worker', retry, () =>
      withStaleAttemptCheck(this.world, this.observe, { poolId, itemId: held.itemId, attempt: held.attempt, what: call.type, mustNotChange, answeredAsLive }, async () => {
        // Each try is judged by its own answer: one that crashes (a retry, a redelivery) answers nothing.
        answer = {};
        try {
          answer = { reply: await this.world.invocations.answerOf(this.pool.region, agentCall(this.deps, { poolId, itemId: held.itemId, agentId: this.spec.agentId, attempt: held.attempt, token: held.token, call })) };
        } catch (error) {
          if (!(error instanceof VigilError) || error instanceof KeysRefreshingError) throw error;
          if (error instanceof InvalidTokenError) checkTokenRefusal(this.world, held.token, `agent ${this.spec.agentId}`);
          this.world.log(`agent ${this.spec.agentId} ${call.type} on ${held.itemId} attempt ${held.attempt} refused: ${(error as VigilError & { code?: string }).code ?? error.name}`);
          answer = { refusal: error };
        }
      }),
    );
    if (call.type === 'heartbeat' && ('reply' in answer || answer.refusal !== undefined)) held.beatAnsweredAt = this.world.now;
    return answer;
  }

  /** `client`: a signed call to the API (claims, reading the pool); `worker`: the attempt's own, on its token. */
  private async call(route: string, kind: 'client' | 'worker', retry: RetryPolicy, run: () => Promise<void>): Promise<void> {
    this.world.calls.httpRequests[kind]++;
    await this.world.invoke(this.pool.region, `pool-${route}`, run, retry);
  }
}
