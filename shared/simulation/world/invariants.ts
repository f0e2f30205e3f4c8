import { gateJobKey } from '../../adapters/aws/dynamo-gate-store.js';
import { DynamoHistoryStore } from '../../adapters/aws/dynamo-history-store.js';
import { jobKey } from '../../adapters/aws/dynamo-job-store.js';
import { hasPending } from '../../app/decide-and-save.js';
import { allRegionsFinal, type GateJob } from '../../domain/gate/gate-job.js';
import { effectiveDeadline } from '../../domain/deadlines.js';
import { gateJobStatus } from '../../domain/gate/gate-job-status.js';
import { timeoutReasonKind } from '../../domain/gate/gate-timeout-cause.js';
import { globalDeadline } from '../../domain/gate/global-deadline.js';
import { gateJobListing, jobListing, type JobListing } from '../../domain/history/job-listing.js';
import { isTerminal, type Job } from '../../domain/job.js';
import { DEFAULT_TENANT } from '../../domain/tenant.js';
import { withoutGrants } from '../../domain/worker-extensions.js';
import { deadlineGateOwes } from './deadline-gate-owes.js';
import { boundWithSweepBacklogMs, detectionBoundMs, extensionCapSeconds, latestFailureMs } from './detection-bound.js';
import type { CancelInvariants } from './cancel-invariants.js';
import type { SimStore } from '../dynamo/sim-store.js';
import type { DeadSweeps } from './dead-sweeps.js';
import { ItemVersions, UNCHANGED } from './item-versions.js';
import { GATE_TABLE, JOBS_TABLE, type SimNodes } from './nodes.js';
import type { JobSpec, WorkerSpec } from './plan.js';
import type { ProgressLog } from './progress-log.js';
import type { World } from './world.js';

interface JobInRegion {
  key: string;
  workers: WorkerSpec[];
}

export interface Violation {
  invariant: string;
  jobId?: string;
  message: string;
  atMs: number;
}

/**
 * The simulation's invariants, checked after every step of the world. State is read through the real
 * adapters on an uncounted view of each store, and re-read only from a store that was written (an
 * item whose stored version is the one read last time is not read again: `ItemVersions`).
 */
export class Invariants {
  readonly violations: Violation[] = [];
  private readonly jobs = new Map<string, Job>();
  private readonly gateJobs = new Map<string, GateJob>();
  private readonly reported = new Set<string>();
  /**
   * When a region's effective deadline last moved earlier (a retired grant: the worker failed, or
   * finished its part and got a fresh budget). A deadline moved into the past is detected from that
   * moment, not retroactively: no implementation could end the job before it learns of the change.
   */
  private readonly shortenedAt = new Map<string, number>();
  /**
   * Jobs with a region that timed out for a good reason (a global timeout of the others follows from
   * it), or whose global timeout for the deadline came when the gate owed no running region more time.
   */
  private readonly justified = new Set<string>();
  /** Jobs whose global timeout for the deadline came before a running region's deadline: how, for the violation. */
  private readonly earlyGlobalTimeout = new Map<string, string>();
  /** What the plan and the policy fix for the whole run, worked out once instead of after every step. */
  private readonly regionsOf = new Map<JobSpec, Map<string, JobInRegion>>();
  private readonly indexEntries = new Map<string, number>();
  private limits: { capSeconds: number; failureMs: number } | undefined;
  private readonly allNodes: ReadonlyArray<{ name: string; dynamo: SimStore }>;
  /** Job items by region, and gate items, as last read: one that did not change is not read and checked again. */
  private readonly jobVersions = new Map<string, ItemVersions>();
  private readonly gateVersions: ItemVersions;

  constructor(
    private readonly world: World,
    private readonly nodes: SimNodes,
    private readonly log: ProgressLog,
    private readonly deadSweeps: DeadSweeps,
    /** The `job-cancel` fault's checks, fed the state read here. */
    private readonly cancels?: CancelInvariants,
  ) {
    this.allNodes = [...nodes.regions.values(), nodes.gate];
    this.gateVersions = new ItemVersions(nodes.gate.dynamo, GATE_TABLE);
  }

  violate(invariant: string, jobId: string | undefined, message: string): void {
    const key = `${invariant}/${jobId ?? ''}`;
    if (this.reported.has(key)) return;
    this.reported.add(key);
    this.violations.push({ invariant, ...(jobId ? { jobId } : {}), message, atMs: this.world.now });
    this.world.log(`VIOLATION ${invariant}${jobId ? ` ${jobId}` : ''}: ${message}`);
  }

  /** Jobs of the plan whose partition (its key names the job id) was written since the last step. */
  private written(partitions: Set<string>, jobs: readonly JobSpec[]): JobSpec[] {
    if (partitions.size === 0) return [];
    const keys = [...partitions];
    return jobs.filter((spec) => keys.some((key) => key.includes(spec.jobId)));
  }

  /** `written`: partition keys each node's store wrote since the last step, by node name. */
  async afterStep(written: ReadonlyMap<string, Set<string>>): Promise<void> {
    const now = this.world.now;
    const none = new Set<string>();
    for (const [region, node] of this.nodes.regions) {
      for (const spec of this.written(written.get(region) ?? none, this.world.plan.jobs)) {
        if (!spec.regions.includes(region)) continue;
        const next = await this.versionsIn(region, node.dynamo).read([spec.jobId], jobKey, () => node.observe.getJob(spec.jobId));
        if (!next || next === UNCHANGED) continue;
        const { key } = this.regionOf(spec, region);
        const previous = this.jobs.get(key);
        if (!previous) this.log.jobSeen(spec.jobId, region, now);
        if (!previous) this.cancels?.regionSeen(spec.jobId, region);
        this.jobs.set(key, next);
        if (previous && effectiveDeadline(next.tracking) < effectiveDeadline(previous.tracking)) this.shortenedAt.set(key, now);
        if (previous) this.checkTransition(spec, region, previous, next);
      }
    }
    for (const spec of this.written(written.get(this.nodes.gate.name) ?? none, this.world.plan.jobs)) {
      const gateJob = await this.gateVersions.read([spec.jobId], gateJobKey, () => this.nodes.gate.observe.get(spec.jobId));
      if (!gateJob || gateJob === UNCHANGED) continue;
      const declared = gateJob.globallyTimedOut && !this.gateJobs.get(spec.jobId)?.globallyTimedOut;
      this.gateJobs.set(spec.jobId, gateJob);
      this.cancels?.gateSeen(gateJob);
      if (declared) this.checkGlobalTimeout(spec, gateJob);
    }
    for (const spec of this.world.plan.jobs) this.checkJob(spec);
    if (this.cancels) {
      this.cancels.checkAnswers((jobId) => this.world.plan.jobs.find((spec) => spec.jobId === jobId), (spec, region) => this.jobIn(spec, region));
      for (const spec of this.world.plan.jobs) this.cancels.check(spec, (region) => this.jobIn(spec, region), this.gateJobs.get(spec.jobId));
    }
    for (const node of this.allNodes) {
      if (node.dynamo.usage.oversizedWrites > 0) this.violate('item-size', undefined, `${node.name}: a write was refused for passing 400 KB`);
    }
  }

  private versionsIn(region: string, store: SimStore): ItemVersions {
    let versions = this.jobVersions.get(region);
    if (!versions) this.jobVersions.set(region, (versions = new ItemVersions(store, JOBS_TABLE)));
    return versions;
  }

  private policy() {
    const first = this.nodes.regions.values().next().value;
    if (!first) throw new Error('no regions');
    return first.deps.policy;
  }

  private policyLimits(): { capSeconds: number; failureMs: number } {
    this.limits ??= { capSeconds: extensionCapSeconds(this.policy()), failureMs: latestFailureMs(this.policy()) };
    return this.limits;
  }

  /** The job in one region: its key in `jobs`, and its workers there in the plan's order. */
  private regionOf(spec: JobSpec, region: string): JobInRegion {
    let byRegion = this.regionsOf.get(spec);
    if (!byRegion) this.regionsOf.set(spec, (byRegion = new Map()));
    let known = byRegion.get(region);
    if (!known) byRegion.set(region, (known = { key: `${spec.jobId}/${region}`, workers: spec.workers.filter((w) => w.region === region) }));
    return known;
  }

  private jobIn(spec: JobSpec, region: string): Job | undefined {
    return this.jobs.get(this.regionOf(spec, region).key);
  }

  private checkTransition(spec: JobSpec, region: string, previous: Job, next: Job): void {
    const passed = effectiveDeadline(previous.tracking);
    // Judged at the instant the grant was decided, which the job records: its write lands later, and
    // with slow calls the step may end after a deadline the decision came before.
    const decidedAt = next.tracking.lastExtensionAt > previous.tracking.lastExtensionAt ? next.tracking.lastExtensionAt : this.world.now;
    if (previous.status === 'RUNNING' && decidedAt >= passed && effectiveDeadline(next.tracking) > passed) {
      this.violate('no-revival', spec.jobId, `${region}: a grant moved a deadline that had passed (${new Date(passed).toISOString()}) to ${new Date(effectiveDeadline(next.tracking)).toISOString()}`);
    }
    if (isTerminal(previous.status) && next.status !== previous.status) {
      this.violate('one-terminal-state', spec.jobId, `${region}: ${previous.status} became ${next.status}`);
    }
    // A gate-coordinated region first decides locally (and reports); its later TIMED_OUT follows from that decision.
    const decidedLocally = !previous.tracking.locallyTimedOut && next.tracking.locallyTimedOut;
    const timedOut = previous.status === 'RUNNING' && next.status === 'TIMED_OUT';
    if (!decidedLocally && !timedOut) return;
    if (this.justified.has(spec.jobId) || this.timeoutJustified(spec, region, previous, next)) {
      this.justified.add(spec.jobId);
      return;
    }
    const early = this.earlyGlobalTimeout.get(spec.jobId);
    this.violate(
      'no-premature-timeout',
      spec.jobId,
      `${region}: ${timedOut ? `TIMED_OUT (${next.tracking.timeoutReason})` : `local timeout (${next.tracking.timeoutReason})`} before its deadline ${new Date(effectiveDeadline(previous.tracking)).toISOString()} while making progress (since the last advance: ${this.log.describe(spec.jobId, region, this.regionOf(spec, region).workers.map((w) => w.workerId), this.world.now)}; stuck threshold ${spec.stuckThresholdSeconds} s)${early ? `; ${early}` : ''}`,
    );
  }

  /**
   * The gate's global timeout for the deadline (seed 000 Part 5, condition 1), judged when it is
   * declared, against what the regions really hold then: it is due once every region still running
   * is past the deadline its workers were told, counted from that region's own start (a region whose
   * fan-out was resent late starts late), as far as the gate could know it (`deadlineGateOwes`).
   * Then every region's timeout follows from it; declared earlier, each region's timeout must be
   * justified on its own. The other conditions (a region's timeout, every region stuck) are judged
   * at the regions, by what their workers really did.
   */
  private checkGlobalTimeout(spec: JobSpec, gateJob: GateJob): void {
    if (timeoutReasonKind(gateJob.timeoutReason ?? '') !== 'timeout') return;
    const now = this.world.now;
    const waited = gateJob.extensionReportsAwaitedUntil;
    const waitedForReports = waited !== undefined && now >= waited;
    const owedLater = spec.regions.flatMap((region) => {
      const job = this.jobIn(spec, region);
      if (!job || isTerminal(job.status)) return [];
      const owed = deadlineGateOwes(gateJob, {
        job,
        acceptanceHeard: gateJob.dcStartedAt?.[region] !== undefined || this.log.hasTokens(spec.jobId, region),
        ...(waitedForReports ? { extensionsHeardSeconds: gateJob.dcTotalExtensions[region] ?? 0 } : {}),
      });
      return now < owed ? [`${region} (started ${new Date(job.tracking.startedAt).toISOString()}) is owed ${new Date(owed).toISOString()}`] : [];
    });
    if (owedLater.length === 0) {
      this.justified.add(spec.jobId);
      return;
    }
    this.earlyGlobalTimeout.set(spec.jobId, `the gate declared its global timeout at ${new Date(now).toISOString()}, yet ${owedLater.join(', ')}`);
  }

  /** A timeout is justified at its deadline, or once the job (or, gate-coordinated, any region of it) really is stuck. */
  private timeoutJustified(spec: JobSpec, region: string, previous: Job, next: Job): boolean {
    const now = this.world.now;
    const due = (r: string, job: Job | undefined) => {
      const deadline = job ? effectiveDeadline(job.tracking) : Infinity;
      const workers = this.regionOf(spec, r).workers.map((w) => w.workerId);
      return now >= deadline || this.log.stuck(spec.jobId, r, workers, spec.stuckThresholdSeconds * 1000, now);
    };
    if (due(region, previous) || now >= effectiveDeadline(next.tracking)) return true;
    // A global timeout for the deadline declared in time was added to `justified` then (checkGlobalTimeout).
    if (!spec.viaGate) return false;
    // Another region's timeout (seed 000 Part 5, condition 2): only one still running can time out; a
    // region that completed before it came to its deadline or stuck justifies nobody's timeout.
    return spec.regions.some((r) => {
      const job = this.jobIn(spec, r);
      return r !== region && job !== undefined && !isTerminal(job.status) && due(r, job);
    });
  }

  /**
   * The most timer-index entries the region can hold at once (one per job and per pool item there,
   * one per pool): the stated bound holds while they fit one sweep's capacity (`SWEEP_CAPACITY`).
   */
  private indexEntriesIn(region: string): number {
    const known = this.indexEntries.get(region);
    if (known !== undefined) return known;
    const plan = this.world.plan;
    const jobs = plan.jobs.filter((job) => job.regions.includes(region)).length;
    const pools = plan.pools.filter((pool) => pool.region === region);
    const entries = jobs + pools.reduce((sum, pool) => sum + pool.items.length + 1, 0);
    this.indexEntries.set(region, entries);
    return entries;
  }

  private checkJob(spec: JobSpec): void {
    const now = this.world.now;
    const cap = this.policyLimits().capSeconds;
    let completedInTime = true;
    const gateJob = this.gateJobs.get(spec.jobId);
    for (const region of spec.regions) {
      const job = this.jobIn(spec, region);
      const inTime = job?.status === 'COMPLETED' && gateJob !== undefined && (job.finishedAt ?? Infinity) < globalDeadline(gateJob);
      completedInTime &&= inTime;
      if (job) this.checkExtensions(spec, region, job, cap);
      if (!job || job.status !== 'RUNNING') continue;
      const deadline = Math.max(this.deadlineInForce(spec, region, job), this.shortenedAt.get(this.regionOf(spec, region).key) ?? -Infinity);
      const stated = boundWithSweepBacklogMs(detectionBoundMs(job.tracking.strategy, this.policy()), this.indexEntriesIn(region));
      const bound = this.deadSweeps.boundFor(region, deadline, stated);
      if (now > deadline + bound) {
        this.violate('no-leak', spec.jobId, `${region}: still RUNNING ${Math.round((now - deadline) / 1000)} s past its effective deadline, or the moment it was moved earlier (bound ${bound / 1000} s)`);
      }
    }
    // Every region ended and none timed out: the gate's timeout, if it declared one, was moot, and its view says so.
    if (gateJob && allRegionsFinal(gateJob) && !Object.values(gateJob.dcStatus).includes('timed_out') && (gateJob.globallyTimedOut || gateJob.timeoutReason !== undefined)) {
      this.violate('gate-completed-never-timed-out', spec.jobId, `every region ended without a timeout (${JSON.stringify(gateJob.dcStatus)}), yet the gate still shows globallyTimedOut ${gateJob.globallyTimedOut}, reason ${gateJob.timeoutReason}`);
    }
    // A region that completed only after the global deadline may fairly be overtaken by the gate's timeout.
    if (gateJob && completedInTime && gateJobStatus(gateJob) === 'TIMED_OUT') {
      const finished = spec.regions.map((r) => `${r} at ${this.jobIn(spec, r)?.finishedAt}`).join(', ');
      this.violate(
        'gate-completed-never-timed-out',
        spec.jobId,
        `every region COMPLETED before the global deadline ${globalDeadline(gateJob)} (${finished}), the gate reports TIMED_OUT (${gateJob.timeoutReason}, decided at ${gateJob.decidedAt})`,
      );
    }
  }

  /**
   * The deadline the job really has: the stored one, less the grants of workers that died and have
   * been silent long enough to be failed (seed 001 §10.7.9). Such a lapse is detected from the moment
   * the worker is failed at the latest, not retroactively, like any deadline moved earlier.
   */
  private deadlineInForce(spec: JobSpec, region: string, job: Job): number {
    const now = this.world.now;
    const lapsed: Array<{ workerIndex: number; epochBefore: number }> = [];
    let lapsedAt = -Infinity;
    const { failureMs } = this.policyLimits();
    this.regionOf(spec, region).workers.forEach((worker, workerIndex) => {
      const silentSince = this.log.silentSince(worker.workerId);
      const failedBy = silentSince === undefined ? Infinity : silentSince + failureMs;
      if (now < failedBy) return;
      lapsed.push({ workerIndex, epochBefore: Number.MAX_SAFE_INTEGER });
      lapsedAt = Math.max(lapsedAt, failedBy);
    });
    if (lapsed.length === 0) return effectiveDeadline(job.tracking);
    const inForce = withoutGrants(job, lapsed);
    return inForce === job ? effectiveDeadline(job.tracking) : Math.max(effectiveDeadline(inForce.tracking), lapsedAt);
  }

  /**
   * This form of AD-26's cap: at any moment, what one worker adds to a job's deadline is at
   * most its current budget's grants (58.125 s); so the job's total is at most that per worker.
   */
  private checkExtensions(spec: JobSpec, region: string, job: Job, capSeconds: number): void {
    const workers = this.regionOf(spec, region).workers.length;
    const { totalExtensionsGranted, maxWorkerExtension } = job.tracking;
    if (maxWorkerExtension > capSeconds || totalExtensionsGranted > capSeconds * workers) {
      this.violate(
        'extension-cap',
        spec.jobId,
        `${region}: workers add ${totalExtensionsGranted} s to the deadline (largest one worker ${maxWorkerExtension} s), more than AD-26's ${capSeconds} s for each of its ${workers} worker(s)`,
      );
    }
  }

  /** After the run: a global timeout left no region running, and the jobs list shows how jobs ended. */
  async atEnd(): Promise<void> {
    for (const spec of this.world.plan.jobs) {
      const gateJob = this.gateJobs.get(spec.jobId);
      if (!gateJob?.globallyTimedOut) continue;
      for (const region of spec.regions) {
        const job = this.jobIn(spec, region);
        if (job && !isTerminal(job.status)) this.violate('global-timeout-everywhere', spec.jobId, `${region} still ${job.status} after the gate's global timeout`);
      }
    }
    await this.checkListings();
  }

  /**
   * A job that ended, and whose outbox and view are no longer pending, is listed with how it ended
   * (decide-and-save.ts): a crash between its last write and its row is repaired by a retry.
   */
  private async checkListings(): Promise<void> {
    const listed = async (node: { dynamo: SimStore }, table: string) => {
      const { jobs } = await new DynamoHistoryStore(node.dynamo.observer, table, () => this.world.now).listJobs({ tenant: DEFAULT_TENANT, limit: 100 });
      return new Map(jobs.map((row) => [row.jobId, row]));
    };
    const mismatch = (row: JobListing | undefined, expected: JobListing) =>
      row?.status !== expected.status || row.timeoutReason !== expected.timeoutReason ? `listed ${row ? `${row.status}/${row.timeoutReason}` : 'nowhere'}` : undefined;
    for (const [region, node] of this.nodes.regions) {
      const rows = await listed(node, JOBS_TABLE);
      for (const spec of this.world.plan.jobs) {
        const job = await node.observe.getJob(spec.jobId);
        if (!job || !isTerminal(job.status) || hasPending(job)) continue;
        const wrong = mismatch(rows.get(spec.jobId), jobListing(job));
        if (wrong) this.violate('listing-matches', spec.jobId, `${region}: ${job.status}/${job.tracking.timeoutReason}, ${wrong}`);
      }
    }
    const gateRows = await listed(this.nodes.gate, GATE_TABLE);
    for (const spec of this.world.plan.jobs) {
      const gateJob = await this.nodes.gate.observe.get(spec.jobId);
      if (!gateJob || !allRegionsFinal(gateJob) || hasPending(gateJob)) continue;
      const expected = gateJobListing(gateJob);
      const wrong = mismatch(gateRows.get(spec.jobId), expected);
      if (wrong) this.violate('listing-matches', spec.jobId, `gate: ${expected.status}/${expected.timeoutReason}, ${wrong}`);
    }
  }

  /** Regions that ended other than TIMED_OUT after the gate's global timeout (reported, not a violation). */
  finishedAfterGlobalTimeout(): string[] {
    const late: string[] = [];
    for (const spec of this.world.plan.jobs) {
      const gateJob = this.gateJobs.get(spec.jobId);
      if (!gateJob?.globallyTimedOut || gateJob.decidedAt === undefined) continue;
      for (const region of spec.regions) {
        const job = this.jobIn(spec, region);
        if (job && job.status !== 'TIMED_OUT' && (job.finishedAt ?? 0) > gateJob.decidedAt) late.push(`${spec.jobId}/${region}:${job.status}`);
      }
    }
    return late;
  }
}
