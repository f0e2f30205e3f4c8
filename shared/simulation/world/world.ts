import { createHash } from 'node:crypto';
import { KeysRefreshingError, VigilError } from '../../domain/errors.js';
import type { Clock } from '../../ports/clock.js';
import { EventQueue } from './event-queue.js';
import type { Plan } from './plan.js';
import { Rng } from './rng.js';
import { AwsCalls } from './aws-calls.js';
import { Invocations } from './invocations.js';
import { drawCrashPoint, type CrashPoint } from './crash-point.js';
import { GATE } from '../../adapters/local/event-routes.js';
import { SimKeyRing } from './sim-key-ring.js';

/** The simulation starts here (virtual epoch ms), whatever the wall clock says. */
export const SIM_EPOCH = Date.UTC(2030, 0, 1);

/** How an event source retries a failed invocation (SQS visibility timeout, Lambda async retries, a client). */
export interface RetryPolicy {
  delayMs: (attempt: number) => number;
  maxAttempts: number;
}

/**
 * The simulated world: a virtual clock that jumps from event to event, the agenda, the trace and
 * the fault switches. Events run one at a time, so a run is a pure function of its plan.
 */
export class World {
  readonly queue = new EventQueue();
  readonly rng: Rng;
  /** Its own stream: turning `slow-calls` or `clock-skew` on leaves every other draw of a seed as it was. */
  private readonly clockDraws: Rng;
  readonly calls = new AwsCalls();
  /** The trace, kept only when asked (a long sweep keeps just its digest). */
  readonly trace: string[] = [];
  private readonly digest = createHash('sha256');
  /** Trace lines not yet hashed: the hash of the text is the same whether it is fed line by line or in blocks. */
  private unhashed = '';
  /** The handlers' clock: with `slow-calls`, each reading also finds that up to a millisecond of their own work has passed. */
  readonly clock: Clock = {
    now: () => {
      if (this.plan.rates.callLatencyMaxMs > 0) this.now += this.clockDraws.int(0, 1);
      return this.now;
    },
  };
  now = SIM_EPOCH;
  /** Which invocation each node runs, where it is to crash and whether it died: the crash fault. */
  readonly invocations: Invocations;
  /** Errors a handler threw that no fault explains: each is reported. */
  readonly unexpectedErrors: string[] = [];
  /** Stale inputs (fence or attempt) that changed a job's or an item's state: filled by the stale guards. */
  readonly staleChanges: Array<{ jobId: string; message: string; invariant?: string }> = [];
  /** The regions' token secret, rotated at the plan's `key-rotation` times. */
  readonly keyRing: SimKeyRing;
  /** Tokens a region handed out, refused as `invalid_token` while their key was in the ring: filled by `checkTokenRefusal`. */
  readonly refusedTokens: Array<{ holder: string; message: string }> = [];
  steps = 0;

  /** `crashPoints`: where each invocation crashes; by default drawn from the seed at the plan's crash rate. */
  constructor(
    readonly plan: Plan,
    private readonly keepTrace = false,
    crashPoints?: () => CrashPoint | undefined,
  ) {
    this.rng = new Rng(plan.seed, 2);
    this.clockDraws = new Rng(plan.seed, 5);
    this.keyRing = new SimKeyRing(plan, () => this.now);
    this.invocations = new Invocations(crashPoints ?? (() => drawCrashPoint(this.rng, this.plan.rates.crash)));
  }

  at(atMs: number, label: string, run: () => Promise<void>): void {
    this.queue.schedule(Math.max(atMs, this.now), label, run);
  }

  after(delayMs: number, label: string, run: () => Promise<void>): void {
    this.at(this.now + delayMs, label, run);
  }

  log(line: string): void {
    const stamped = `${((this.now - SIM_EPOCH) / 1000).toFixed(3)} ${line}`;
    this.unhashed += `${stamped}\n`;
    if (this.unhashed.length > 65_536) this.hashTrace();
    if (this.keepTrace) this.trace.push(stamped);
  }

  /** SHA-256 of every trace line so far: equal digests, equal runs. */
  traceDigest(): string {
    this.hashTrace();
    return this.digest.copy().digest('hex');
  }

  private hashTrace(): void {
    this.digest.update(this.unhashed);
    this.unhashed = '';
  }

  /** Runs the agenda until it is empty, `untilMs` passes, or `stop()` says so; `afterStep` runs after each event. */
  async run(untilMs: number, afterStep: () => Promise<void>, stop: () => boolean): Promise<void> {
    for (let event = this.queue.pop(); event && event.at <= untilMs; event = this.queue.pop()) {
      // Never back: a handler's store calls may have moved the clock past the next event's time.
      this.now = Math.max(this.now, event.at);
      this.steps++;
      await event.run();
      await afterStep();
      if (stop()) return;
    }
  }

  /** A handler's store call takes its time (`slow-calls`): the clock moves on while it runs. */
  spendCallTime(): void {
    const max = this.plan.rates.callLatencyMaxMs;
    if (max > 0) this.now += this.clockDraws.int(0, max);
  }

  /** How much before its due time a wake-up arrives by its handler's clock (`clock-skew`). */
  wakeUpSkewMs(): number {
    const max = this.plan.rates.wakeUpSkewMaxMs;
    return max > 0 ? this.clockDraws.int(0, max) : 0;
  }

  private within(window: { fromMs: number; untilMs: number }): boolean {
    const t = this.now - SIM_EPOCH;
    return t >= window.fromMs && t < window.untilMs;
  }

  gateDown(): boolean {
    return this.plan.faults.some((f) => f.kind === 'gate-down' && this.within(f));
  }

  /** Whether the link between a region and the gate is cut (or the gate is down). */
  severed(region: string): boolean {
    return this.plan.faults.some((f) => f.kind === 'region-cut' && f.region === region && this.within(f));
  }

  busDown(node: string): boolean {
    return this.plan.faults.some((f) => f.kind === 'bus-outage' && f.node === node && this.within(f));
  }

  /**
   * Runs one invocation. A failure is retried as its event source would; with the redelivery rate the
   * same input arrives once more even after a success (at-least-once delivery).
   */
  async invoke(node: string, route: string, run: () => Promise<void>, retry: RetryPolicy, attempt = 1): Promise<boolean> {
    const name = `${node}:${route}`;
    this.calls.lambda(name);
    let ok = true;
    try {
      await this.invocations.run(node, node === GATE ? `gate ${route}` : route, run);
    } catch (error) {
      ok = false;
      const expected = isExpectedFailure(error);
      this.log(`${name} failed (attempt ${attempt}): ${(error as Error).name}: ${(error as Error).message}`);
      if (!expected) this.unexpectedErrors.push(`${name}: ${(error as Error).stack ?? String(error)}`);
      if (attempt < retry.maxAttempts) this.after(Math.max(retry.delayMs(attempt), retryAfterMs(error)), `retry ${name}`, async () => void (await this.invoke(node, route, run, retry, attempt + 1)));
      else this.log(`${name} gave up after ${attempt} attempts`);
    }
    if (ok && this.rng.chance(this.plan.rates.redelivery)) {
      this.after(this.rng.int(1_000, 60_000), `redeliver ${name}`, async () => void (await this.invoke(node, route, run, retry, retry.maxAttempts)));
    }
    return ok;
  }
}

/** A 503 `keys_refreshing` is retried no sooner than its Retry-After (whole seconds), as the SDK retries it. */
const retryAfterMs = (error: unknown): number => (error instanceof KeysRefreshingError ? error.retryAfterSeconds * 1000 : 0);

/** Failures the simulated world causes on purpose, and the typed errors a use case answers with. */
function isExpectedFailure(error: unknown): boolean {
  if (error instanceof AggregateError) return error.errors.every(isExpectedFailure);
  if (!(error instanceof Error)) return false;
  if (['SimulatedCrash', 'BusUnavailable', 'GateDown', 'VersionConflictError'].includes(error.name)) return true;
  return error instanceof VigilError;
}
