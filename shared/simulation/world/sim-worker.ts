import type { ManagerDeps } from '../../app/manager-deps.js';
import { completeWorkflow } from '../../app/complete-workflow.js';
import { reportProgress } from '../../app/report-progress.js';
import { reportWorkerFailure } from '../../app/report-worker-failure.js';
import { requestExtension } from '../../app/request-extension.js';
import { InvalidTokenError } from '../../domain/errors.js';
import { CLIENT_RETRY, NO_RETRY } from './delivery.js';
import type { WorkerSpec } from './plan.js';
import type { ProgressLog } from './progress-log.js';
import { checkTokenRefusal } from './token-refusals.js';
import type { World } from './world.js';

/** Reports an `extends-then-dies` worker makes (each followed by an extension request) before it falls silent. */
const EXTENDING_REPORTS = 4;

/**
 * One worker running one workflow through the worker routes, behaving as its spec says: it works
 * and completes, or dies, hangs while its heartbeat stays alive, asks for extensions without
 * progress, or asks until denied, is reported failed, recovers and asks again. It stops when an
 * answer tells it the job has ended.
 */
export class SimWorker {
  /** Steps of work done; reported as a fraction that only grows (progress is 0–1, only a rise counts). */
  private steps = 0;
  private stopped = false;
  private failureReported = false;
  private burstEnd: 'silence' | 'repeats' | undefined;
  private startedAt = 0;
  /** SDK-like calls (`sdkHeartbeatMs`): the next call is a heartbeat, not a progress report. */
  private nextIsBeat = false;

  constructor(
    private readonly world: World,
    private readonly spec: WorkerSpec,
    private readonly jobId: string,
    private readonly deps: ManagerDeps,
    private readonly log: ProgressLog,
  ) {}

  start(token: string): void {
    this.startedAt = this.world.now;
    this.world.log(`worker ${this.spec.workerId} starts (${this.spec.behaviour})`);
    // As the SDK, a first report at once (a beat: no progress yet).
    this.nextIsBeat = this.spec.sdkHeartbeatMs !== undefined;
    this.schedule(token, this.spec.sdkHeartbeatMs !== undefined ? 0 : this.world.rng.int(0, this.world.plan.progressEveryMs));
  }

  /** As the SDK's caller works: one progress call per period of the work, then the outcome at once. */
  private reportedEveryStep(): boolean {
    return this.steps >= Math.floor(this.spec.durationMs / this.world.plan.progressEveryMs);
  }

  /** As the SDK calls: progress at start + k × period; between, a heartbeat after each silence of `sdkHeartbeatMs`. */
  private nextProgressAt(): number {
    const period = this.world.plan.progressEveryMs;
    return this.startedAt + (this.steps + 1) * period;
  }

  private schedule(token: string, delayMs: number): void {
    this.world.after(delayMs, `worker ${this.spec.workerId}`, () => this.tick(token));
  }

  private faulty(): boolean {
    return this.spec.behaviour !== 'normal' && this.world.now - this.startedAt >= this.spec.faultAfterMs;
  }

  private async tick(token: string): Promise<void> {
    if (this.stopped) return;
    const { behaviour } = this.spec;
    // A bursty worker's fault is silence (as `dies`) or its last value again and again, drawn once.
    if (behaviour === 'bursts' && this.faulty()) this.burstEnd ??= this.world.rng.chance(0.5) ? 'silence' : 'repeats';
    if (((behaviour === 'dies' || this.burstEnd === 'silence') && this.faulty()) || this.diesNowAfterExtending()) {
      this.world.log(`worker ${this.spec.workerId} dies`);
      this.log.workerDied(this.spec.workerId, this.world.now);
      this.stopped = true;
      return;
    }
    const finished = this.spec.sdkHeartbeatMs !== undefined ? this.reportedEveryStep() : this.world.now - this.startedAt >= this.spec.durationMs;
    const repeatsItself = behaviour === 'hangs' || behaviour === 'extension-no-progress' || behaviour === 'bursts';
    if (finished && !(this.faulty() && repeatsItself)) {
      this.stopped = true;
      // Its first send: a retry may find the outcome recorded by an attempt whose answer was lost.
      const sentAt = this.world.now;
      await this.call('complete-workflow', token, CLIENT_RETRY, async () => {
        const answer = await this.world.invocations.answerOf(this.spec.region, completeWorkflow(this.deps, { ...this.ids(), outcome: 'completed', token }));
        this.world.log(`worker ${this.spec.workerId} completed its workflow (job ${answer.jobStatus})`);
        this.log.workflowFinished(this.spec.workerId, sentAt);
      });
      return;
    }
    // A bursty worker also pauses: half its reports repeat its last value before it rises again.
    const beat = this.nextIsBeat;
    const stalled = beat || (this.faulty() && repeatsItself) || (behaviour === 'bursts' && this.world.rng.chance(0.5));
    if (!stalled) this.steps++;
    // A repeated call (a client resending) carries what the first one said, when it said it.
    const progress = this.progress();
    const sentAt = this.world.now;
    await this.call('report-progress', token, NO_RETRY, async () => {
      const answer = await this.world.invocations.answerOf(this.spec.region, reportProgress(this.deps, { ...this.ids(), progress, token }));
      // A report without a rise is a heartbeat: it keeps the worker healthy, not the job.
      if (!stalled) this.log.progressed(this.spec.workerId, sentAt);
      if (answer.cancel) {
        this.world.log(`worker ${this.spec.workerId} told to stop (${answer.status})`);
        this.stopped = true;
      }
    });
    if (!this.stopped && this.faulty() && (behaviour === 'extension-no-progress' || behaviour === 'recovers' || behaviour === 'extends-then-dies')) await this.askForExtension(token);
    if (!this.stopped) this.schedule(token, this.nextCallInMs());
  }

  private nextCallInMs(): number {
    const { sdkHeartbeatMs } = this.spec;
    if (sdkHeartbeatMs !== undefined) {
      const toProgress = this.reportedEveryStep() ? 0 : this.nextProgressAt() - this.world.now;
      // A beat due at the moment of the next report goes first, as the SDK's timer may: the dearer case.
      this.nextIsBeat = sdkHeartbeatMs <= toProgress;
      return this.nextIsBeat ? sdkHeartbeatMs : toProgress;
    }
    return this.spec.behaviour === 'bursts' ? this.world.rng.int(100, 1_500) : this.world.plan.progressEveryMs + this.world.rng.int(0, 500);
  }

  /** `extends-then-dies`: a few reports (and grants) after its fault, it falls silent holding them. */
  private diesNowAfterExtending(): boolean {
    return this.spec.behaviour === 'extends-then-dies' && this.world.now - this.startedAt >= this.spec.faultAfterMs + EXTENDING_REPORTS * this.world.plan.progressEveryMs;
  }

  private async askForExtension(token: string): Promise<void> {
    const currentProgress = this.progress();
    await this.call('request-extension', token, NO_RETRY, async () => {
      const answer = await this.world.invocations.answerOf(this.spec.region, requestExtension(this.deps, { workerId: this.spec.workerId, token, currentProgress }));
      if (answer.granted) {
        this.world.log(`worker ${this.spec.workerId} granted ${answer.extensionSeconds} s`);
        return;
      }
      this.world.log(`worker ${this.spec.workerId} denied: ${answer.denialReason}`);
      if (this.spec.behaviour === 'recovers' && !this.failureReported) {
        // The orchestrator gives up on the worker; its next heartbeat recovers it (seed 001 §10.4.9).
        this.failureReported = true;
        await this.world.invocations.answerOf(this.spec.region, reportWorkerFailure(this.deps, this.spec.workerId));
        this.world.log(`worker ${this.spec.workerId} reported failed`);
      }
    });
  }

  private progress(): number {
    return 1 - 1 / (this.steps + 2);
  }

  private ids() {
    return { jobId: this.jobId, workflowId: this.spec.workflowId, workerId: this.spec.workerId };
  }

  /**
   * A call on the worker's token, as the SDK makes it: a 503 (`keys_refreshing`) is retried as its
   * route retries, no sooner than its Retry-After; a 403 `invalid_token` ends the work, unretried.
   */
  private async call(route: string, token: string, retry: typeof NO_RETRY, run: () => Promise<void>): Promise<void> {
    this.world.calls.httpRequests.worker++;
    // Handled when it runs: a call redelivered after the worker died is still heard from it then.
    const heard = async () => {
      this.log.workerHeard(this.spec.workerId, this.world.now);
      try {
        await run();
      } catch (error) {
        if (!(error instanceof InvalidTokenError)) throw error;
        this.world.log(`worker ${this.spec.workerId} ${route} refused invalid_token: its work is over`);
        this.stopped = true;
        checkTokenRefusal(this.world, token, `worker ${this.spec.workerId}`);
      }
    };
    await this.world.invoke(this.spec.region, route, heard, retry);
  }
}
