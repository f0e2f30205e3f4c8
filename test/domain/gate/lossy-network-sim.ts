import { cancelJob } from '../../../shared/domain/cancel-job.js';
import { completeWorkflow } from '../../../shared/domain/complete-workflow.js';
import type { DecisionContext } from '../../../shared/domain/decision-context.js';
import type { Decision, Effect } from '../../../shared/domain/effects.js';
import { cancelGateJob } from '../../../shared/domain/gate/cancel-gate-job.js';
import type { GateJob } from '../../../shared/domain/gate/gate-job.js';
import type { GatePolicy } from '../../../shared/domain/gate/gate-policy.js';
import { onFinalStatus } from '../../../shared/domain/gate/on-final-status.js';
import { onGateTimerFired } from '../../../shared/domain/gate/on-gate-timer-fired.js';
import { onLeaderTransfer } from '../../../shared/domain/gate/on-leader-transfer.js';
import { onProgressReport } from '../../../shared/domain/gate/on-progress-report.js';
import { onTimeoutReport } from '../../../shared/domain/gate/on-timeout-report.js';
import { markRegionSubmitted } from '../../../shared/domain/gate/region-submission.js';
import { startGateJob } from '../../../shared/domain/gate/start-gate-job.js';
import { onGlobalCancel, onGlobalTimeout } from '../../../shared/domain/gate-decisions.js';
import { isTerminal, type Job, type Workflow } from '../../../shared/domain/job.js';
import type { TimeoutPolicy } from '../../../shared/domain/policy.js';
import { startJob } from '../../../shared/domain/submit-job.js';
import { takeOverJob } from '../../../shared/domain/take-over-job.js';
import { onTimerFired } from '../../../shared/domain/timer-fired.js';
import type { EpochMs } from '../../../shared/domain/time.js';
import { JobFinalStatus } from '../../../shared/events/job-final-status.js';
import { JobGlobalCancel } from '../../../shared/events/job-global-cancel.js';
import { JobGlobalTimeout } from '../../../shared/events/job-global-timeout.js';
import { JobLeaderTransfer } from '../../../shared/events/job-leader-transfer.js';
import { JobProgressReport } from '../../../shared/events/job-progress-report.js';
import { JobTimeoutReport } from '../../../shared/events/job-timeout-report.js';
import type { BusEvent } from '../../../shared/ports/event-bus.js';
import type { TimerRequest } from '../../../shared/ports/timers.js';

/** A small deterministic PRNG (mulberry32): the same seed replays the same faults. */
export function seededRandom(seed: number): () => number {
  let a = seed >>> 0;
  return () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = a;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4_294_967_296;
  };
}

export interface Faults {
  /** Chance that one delivery of an event is lost. */
  dropRate: number;
  /** Chance that an event is delivered twice. */
  duplicateRate: number;
  /** Each delivery is delayed by up to this much, so events overtake each other. */
  maxDelayMs: number;
  /** The gate handles nothing in [from, until): events sent to it are lost; its timers fire late. */
  gateDown?: { from: EpochMs; until: EpochMs };
}

export interface SimSetup {
  seed: number;
  start: EpochMs;
  gateRegion: string;
  regions: readonly string[];
  timeoutSeconds: number;
  stuckThresholdSeconds: number;
  managerPolicy: TimeoutPolicy;
  gatePolicy: GatePolicy;
  faults: Faults;
}

type Node = string; // 'gate' or a region
const GATE: Node = 'gate';

/**
 * The gate core and one manager core per region, wired through an event network that loses,
 * duplicates, delays and reorders, on a virtual clock. Timers are durable (they fire, late if the
 * gate is down) and, like SQS delay messages, are never replaced: stale ones fire too.
 */
export class GateAndManagersSim {
  now: EpochMs;
  gate: GateJob;
  readonly jobs = new Map<string, Job>();
  private readonly workflows = new Map<string, Workflow[]>();
  readonly metrics: Array<{ node: Node; name: string; dimensions?: Record<string, string> }> = [];
  readonly sentByType = new Map<string, number>();
  readonly downstream: BusEvent[] = [];
  private timers: Array<{ node: Node; timer: TimerRequest }> = [];
  private inFlight: Array<{ at: EpochMs; to: Node; event: BusEvent }> = [];
  private actions: Array<{ at: EpochMs; run: () => void }> = [];
  private watchers: Array<{ when: () => boolean; run: () => void }> = [];
  private readonly managerIds = new Map<string, string>();
  private readonly random: () => number;

  constructor(private readonly setup: SimSetup) {
    this.now = setup.start;
    this.random = seededRandom(setup.seed);
    const datacenters = Object.fromEntries(setup.regions.map((region) => [region, { workflows: [] }]));
    const started = startGateJob({ jobId: 'job-1', timeoutSeconds: setup.timeoutSeconds, datacenters }, 'digest', this.now);
    this.gate = started.state;
    this.run(GATE, started.effects);
    for (const region of setup.regions) {
      this.managerIds.set(region, `${region}-manager-a`);
      const submission = {
        jobId: 'job-1',
        timeoutSeconds: setup.timeoutSeconds,
        stuckThresholdSeconds: setup.stuckThresholdSeconds,
        gateRegion: setup.gateRegion,
        workflows: [{ workflowId: 'wf-1', workerId: `${region}-worker` }],
      };
      const submitted = startJob(submission, 'digest', region, this.context(region), `incarnation-${region}`);
      this.jobs.set(region, submitted.job);
      this.workflows.set(region, submitted.workflows);
      this.run(region, submitted.effects);
      // The fan-out is an HTTP call the gate retries until answered: not subject to event loss.
      this.applyGate(markRegionSubmitted(this.gate, region, submitted.job.tracking.fenceToken));
    }
  }

  job(region: string): Job {
    const job = this.jobs.get(region);
    if (!job) throw new Error(`no job in ${region}`);
    return job;
  }

  /** Workers in the region report progress every `everyMs` while the job runs (the store's `touchJobProgress`). */
  workersProgress(region: string, everyMs: number): void {
    const tick = () => {
      const job = this.job(region);
      if (isTerminal(job.status)) return;
      this.jobs.set(region, { ...job, tracking: { ...job.tracking, lastProgressAt: Math.max(job.tracking.lastProgressAt, this.now) } });
      this.at(this.now + everyMs, tick);
    };
    this.at(this.now + everyMs, tick);
  }

  /** A leadership transfer in the region (seed 000 Scenario 1): the fence token goes up. */
  takeOver(region: string): void {
    const job = this.job(region);
    if (isTerminal(job.status)) return;
    this.managerIds.set(region, `${region}-manager-b`);
    this.applyManager(region, takeOverJob(job, this.context(region)));
  }

  /** Every workflow of the region reports its outcome (a no-op once the job ended there). */
  complete(region: string): void {
    for (const workflow of this.workflows.get(region) ?? []) {
      if (isTerminal(this.job(region).status)) return;
      this.applyManager(region, completeWorkflow(this.job(region), workflow, 'completed', this.context(region)));
    }
  }

  /** `POST /jobs/{jobId}/cancel` on one region's manager (a no-op once the job ended there). */
  cancelInRegion(region: string, reason: string): void {
    const job = this.job(region);
    if (isTerminal(job.status)) return;
    this.applyManager(region, cancelJob(job, reason, this.context(region)));
  }

  /** `POST /jobs/{jobId}/cancel` on the gate. */
  cancelAtGate(reason: string): void {
    this.applyGate(cancelGateJob(this.gate, reason, this.now, this.setup.gatePolicy));
  }

  at(at: EpochMs, run: () => void): void {
    this.actions.push({ at, run });
  }

  /** Runs `run` once, right after the first step at which `when` holds. */
  onceWhen(when: () => boolean, run: () => void): void {
    this.watchers.push({ when, run });
  }

  /** Steps until nothing is left to happen (no event in flight, no timer, no action), or `until`. */
  runUntilQuiet(until: EpochMs): { quiet: boolean } {
    for (let steps = 0; steps < 1_000_000; steps++) {
      const next = this.nextStep();
      if (!next) return { quiet: true };
      if (next.at > until) return { quiet: false };
      this.now = Math.max(this.now, next.at);
      next.run();
      for (const watcher of [...this.watchers]) {
        if (!watcher.when()) continue;
        this.watchers = this.watchers.filter((w) => w !== watcher);
        watcher.run();
      }
    }
    throw new Error('simulation did not settle in a million steps');
  }

  pendingTimers(node: Node): TimerRequest[] {
    return this.timers.filter((t) => t.node === node).map((t) => t.timer);
  }

  private gateDownAt(at: EpochMs): boolean {
    const down = this.setup.faults.gateDown;
    return down !== undefined && at >= down.from && at < down.until;
  }

  private nextStep(): { at: EpochMs; run: () => void } | undefined {
    const candidates: Array<{ at: EpochMs; run: () => void }> = [];
    const action = minBy(this.actions, (a) => a.at);
    if (action) candidates.push({ at: action.at, run: () => this.take(this.actions, action).run() });
    const timer = minBy(this.timers, (t) => this.timerFiresAt(t));
    if (timer) candidates.push({ at: this.timerFiresAt(timer), run: () => this.fire(this.take(this.timers, timer)) });
    const message = minBy(this.inFlight, (m) => m.at);
    if (message) candidates.push({ at: message.at, run: () => this.deliver(this.take(this.inFlight, message)) });
    return minBy(candidates, (c) => c.at);
  }

  private take<Item>(list: Item[], item: Item): Item {
    list.splice(list.indexOf(item), 1);
    return item;
  }

  private timerFiresAt({ node, timer }: { node: Node; timer: TimerRequest }): EpochMs {
    const down = this.setup.faults.gateDown;
    if (node === GATE && down !== undefined && this.gateDownAt(timer.dueAt)) return down.until;
    return timer.dueAt;
  }

  private fire({ node, timer }: { node: Node; timer: TimerRequest }): void {
    if (node === GATE) this.applyGate(onGateTimerFired(this.gate, timer, this.now, this.setup.gatePolicy));
    else this.applyManager(node, onTimerFired(this.job(node), timer, this.context(node)));
  }

  private deliver({ to, event }: { to: Node; event: BusEvent }): void {
    if (to === GATE) {
      if (this.gateDownAt(this.now)) return;
      this.applyGate(this.gateDecides(event));
      return;
    }
    const job = this.job(to);
    if (event.detailType === JobGlobalTimeout.detailType) {
      this.applyManager(to, onGlobalTimeout(job, JobGlobalTimeout.parse(event.detail), this.context(to)));
    } else if (event.detailType === JobGlobalCancel.detailType) {
      this.applyManager(to, onGlobalCancel(job, JobGlobalCancel.parse(event.detail).reason, this.context(to)));
    } else {
      throw new Error(`a manager got ${event.detailType}`);
    }
  }

  private gateDecides(event: BusEvent): Decision<GateJob> {
    const { now } = this;
    const policy = this.setup.gatePolicy;
    switch (event.detailType) {
      case JobProgressReport.detailType:
        return onProgressReport(this.gate, JobProgressReport.parse(event.detail), now, policy);
      case JobTimeoutReport.detailType:
        return onTimeoutReport(this.gate, JobTimeoutReport.parse(event.detail), now, policy);
      case JobLeaderTransfer.detailType:
        return onLeaderTransfer(this.gate, JobLeaderTransfer.parse(event.detail));
      case JobFinalStatus.detailType:
        return onFinalStatus(this.gate, JobFinalStatus.parse(event.detail), now, policy);
      default:
        throw new Error(`the gate got ${event.detailType}`);
    }
  }

  private context(region: string): DecisionContext {
    return { now: this.now, policy: this.setup.managerPolicy, managerId: this.managerIds.get(region) ?? region };
  }

  private applyGate(decision: Decision<GateJob>): void {
    this.gate = decision.state;
    this.run(GATE, decision.effects);
  }

  private applyManager(region: string, decision: Decision<Job>): void {
    this.jobs.set(region, decision.state);
    this.run(region, decision.effects);
  }

  private run(node: Node, effects: readonly Effect[]): void {
    for (const effect of effects) {
      if (effect.type === 'ArmTimer') this.timers.push({ node, timer: effect.timer });
      else if (effect.type === 'DisarmTimer') {
        this.timers = this.timers.filter((t) => !(t.node === node && t.timer.scope === effect.timer.scope && t.timer.jobId === effect.timer.jobId && t.timer.fenceToken === effect.timer.fenceToken));
      } else if (effect.type === 'Metric') this.metrics.push({ node, name: effect.name, ...(effect.dimensions ? { dimensions: effect.dimensions } : {}) });
      else this.send(node, effect.event);
    }
  }

  private send(from: Node, event: BusEvent): void {
    this.sentByType.set(event.detailType, (this.sentByType.get(event.detailType) ?? 0) + 1);
    if (event.detailType === 'JobTimedOut') {
      this.downstream.push(event);
      return;
    }
    const to = from === GATE ? String(event.detail.region) : GATE;
    const { dropRate, duplicateRate, maxDelayMs } = this.setup.faults;
    const copies = this.random() < duplicateRate ? 2 : 1;
    for (let copy = 0; copy < copies; copy++) {
      if (this.random() < dropRate) continue;
      this.inFlight.push({ at: this.now + Math.floor(this.random() * maxDelayMs), to, event });
    }
  }
}

function minBy<Item>(items: readonly Item[], key: (item: Item) => number): Item | undefined {
  let best: Item | undefined;
  for (const item of items) if (best === undefined || key(item) < key(best)) best = item;
  return best;
}
