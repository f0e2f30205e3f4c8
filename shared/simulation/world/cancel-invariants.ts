import { GATE } from '../../adapters/local/event-routes.js';
import { DETECTION_BOUND_MS } from '../../app/detection-bound.js';
import { allRegionsFinal, isDecided, type DcStatus, type GateJob } from '../../domain/gate/gate-job.js';
import { gateJobStatus } from '../../domain/gate/gate-job-status.js';
import { defaultGatePolicy } from '../../domain/gate/gate-policy.js';
import { defaultTimeoutPolicy } from '../../domain/policy.js';
import { isTerminal, type Job, type JobStatus } from '../../domain/job.js';
import type { DeadSweeps } from './dead-sweeps.js';
import type { JobCancels } from './job-cancels.js';
import type { JobSpec, ScheduledFault } from './plan.js';
import { SIM_EPOCH, type World } from './world.js';

/** A copy's ordinary trip on the bus (`sim-bus.ts`): up to 300 ms, and up to 5 s more when reordered. */
const ORDINARY_DELIVERY_MS = 5_300;

/**
 * How long after the gate stored its cancel decision every region that holds the job has ended it,
 * while the gate, the gate's bus and its link to that region are up (each outage moves the start to
 * its end: `cancelStartMs`). From the code's constants:
 * - the decision goes out with its write, and again every `rebroadcastSeconds` (10 s) on the gate's
 *   wake-up until the region's final status comes back (`broadcastDecision`, `onGateTimerFired`);
 * - that wake-up may be lost (timer-loss), or its fire crash, or be due while the gate was down (its
 *   SQS retries come 180 s apart): the gate's sweep fires it within the stated `DETECTION_BOUND_MS`
 *   (70 s: an interval, the grace and the slack) of its due time, the decision's write included (a
 *   crash between the write and its sends: the write stored the wake-up). Each of the gate's sweep
 *   runs that died adds an interval (`DeadSweeps`), as for the no-leak check;
 * - a copy may be dropped or delayed (it then comes minutes late), or its handler in the region crash
 *   or lose a race (retried a minute later): the next re-send carries the decision again 10 s on;
 * - a copy that arrived before the region had the job is dropped (404); the region's acceptance of a
 *   resent submit is answered with the decision (`markRegionSubmitted`), and the clock starts when the
 *   region has the job.
 * So: one lost wake-up, then three copies in a row lost, then one ordinary trip. A region that does
 * not hear it for longer is still bounded by the no-leak check (its own deadline), but that is a
 * cancel ignored for minutes.
 */
export const CANCEL_REACHES_REGION_MS = DETECTION_BOUND_MS + 3 * defaultGatePolicy.rebroadcastSeconds * 1_000 + ORDINARY_DELIVERY_MS;

/**
 * How long after a region answered 2xx to a cancel of a gate-coordinated job made there the gate has
 * decided the job's end (stored its cancel, or a global timeout it took before), or holds every region
 * ended, while the gate, that region's bus and its link are up (`regionCancelStartMs`). The same
 * reasoning as `CANCEL_REACHES_REGION_MS`, the other way: the region's final status asks for the cancel
 * with its write (outbox) and again every `gateReportIntervalSeconds` (10 s) on the job's wake-up until
 * the gate answers (own-cancel-to-gate.ts); that wake-up may be lost and fired by the region's sweep;
 * a copy may be dropped, or the gate's handler crash. From there `cancel-reaches-regions` takes over.
 */
export const REGION_CANCEL_REACHES_GATE_MS = DETECTION_BOUND_MS + 3 * defaultTimeoutPolicy.gateReportIntervalSeconds * 1_000 + ORDINARY_DELIVERY_MS;

const SEVERITY: JobStatus[] = ['TIMED_OUT', 'FAILED', 'CANCELLED', 'COMPLETED'];
const STATUS_OF: Record<DcStatus, JobStatus | undefined> = {
  submitting: undefined,
  running: undefined,
  completed: 'COMPLETED',
  failed: 'FAILED',
  cancelled: 'CANCELLED',
  timed_out: 'TIMED_OUT',
};

type Violate = (invariant: string, jobId: string, message: string) => void;

/**
 * The invariants of the `job-cancel` fault, checked after every step with the state `Invariants` read:
 * - `cancel-reaches-regions`: once the gate stored a cancel decision, every region holding the job
 *   ends it (any final state) within `CANCEL_REACHES_REGION_MS`; a region's cancel ends it at once;
 * - `region-cancel-reaches-gate`: a gate-coordinated job cancelled at one of its regions (answered
 *   2xx) has the gate's decision within `REGION_CANCEL_REACHES_GATE_MS` (unless the gate holds every
 *   region ended), so with the check above it ends in every region;
 * - `cancel-answer-matches`: a 2xx cancel left the job CANCELLED (in its region), a 409 from a region
 *   found it finished;
 * - `gate-status-after-cancel`: once every region has ended a cancelled job, the gate's status is the
 *   most severe of how the regions really ended it (timed out, failed, cancelled, completed), and the
 *   gate's view of each region is that region's own final state.
 * A cancel never changes a terminal state: the `one-terminal-state` check of every region's item covers it.
 */
export class CancelInvariants {
  /** When the gate's cancel decision was first seen stored, by job. */
  private readonly decidedAt = new Map<string, number>();
  /** When each region's item of a job was first seen, by `jobId/region`. */
  private readonly seenAt = new Map<string, number>();
  private answersChecked = 0;

  constructor(
    private readonly world: World,
    private readonly cancels: JobCancels,
    private readonly deadSweeps: DeadSweeps,
    private readonly violate: Violate,
  ) {}

  regionSeen(jobId: string, region: string): void {
    const key = `${jobId}/${region}`;
    if (!this.seenAt.has(key)) this.seenAt.set(key, this.world.now);
  }

  gateSeen(gateJob: GateJob): void {
    if (gateJob.cancelRequested !== undefined && !this.decidedAt.has(gateJob.jobId)) this.decidedAt.set(gateJob.jobId, this.world.now);
  }

  /** The answers given since the last step, against the state they left. */
  checkAnswers(specOf: (jobId: string) => JobSpec | undefined, jobIn: (spec: JobSpec, region: string) => Job | undefined): void {
    for (const answer of this.cancels.answers.slice(this.answersChecked)) {
      const spec = specOf(answer.jobId);
      if (!spec || answer.region === undefined) continue;
      const region = answer.region;
      const job = jobIn(spec, region);
      if (answer.accepted && job?.status !== 'CANCELLED') this.violate('cancel-answer-matches', spec.jobId, `${region}: the cancel was answered 2xx, yet the job is ${job?.status ?? 'unknown'}`);
      if (!answer.accepted && (!job || !isTerminal(job.status))) this.violate('cancel-answer-matches', spec.jobId, `${region}: the cancel was answered 409 (${answer.status}), yet the job is ${job?.status ?? 'unknown'}`);
    }
    this.answersChecked = this.cancels.answers.length;
  }

  check(spec: JobSpec, jobIn: (region: string) => Job | undefined, gateJob: GateJob | undefined): void {
    const now = this.world.now;
    if (spec.viaGate) this.checkRegionCancelReachesGate(spec, gateJob);
    const decided = spec.viaGate ? this.decidedAt.get(spec.jobId) : this.cancels.accepted(spec.jobId);
    if (decided === undefined) return;
    for (const region of spec.regions) {
      const job = jobIn(region);
      if (!job || isTerminal(job.status)) continue;
      const seen = this.seenAt.get(`${spec.jobId}/${region}`) ?? now;
      if (!spec.viaGate) {
        this.violate('cancel-reaches-regions', spec.jobId, `${region}: still ${job.status} after its cancel was answered 2xx at ${this.at(decided)}`);
        continue;
      }
      const from = this.cancelStartMs(region, Math.max(decided, seen));
      const bound = this.deadSweeps.boundFor(GATE, from, CANCEL_REACHES_REGION_MS);
      if (now > from + bound) {
        this.violate(
          'cancel-reaches-regions',
          spec.jobId,
          `${region}: still ${job.status} ${Math.round((now - from) / 1000)} s after the gate's cancel decision (stored at ${this.at(decided)}, the region's job seen at ${this.at(seen)}, counted from ${this.at(from)}; bound ${bound / 1000} s)`,
        );
      }
    }
    if (spec.viaGate && gateJob?.cancelRequested !== undefined && allRegionsFinal(gateJob)) this.checkGateStatus(spec, jobIn, gateJob);
  }

  private checkRegionCancelReachesGate(spec: JobSpec, gateJob: GateJob | undefined): void {
    const cancelled = this.cancels.acceptedAtRegion(spec.jobId);
    if (!cancelled || (gateJob && (isDecided(gateJob) || allRegionsFinal(gateJob)))) return;
    const from = this.outagesPassed(cancelled.atMs, REGION_CANCEL_REACHES_GATE_MS, (f) =>
      f.kind === 'gate-down' || (f.kind === 'region-cut' && f.region === cancelled.region) || (f.kind === 'bus-outage' && f.node === cancelled.region),
    );
    const bound = this.deadSweeps.boundFor(cancelled.region, from, REGION_CANCEL_REACHES_GATE_MS);
    if (this.world.now > from + bound) {
      this.violate(
        'region-cancel-reaches-gate',
        spec.jobId,
        `cancelled at ${cancelled.region} (answered 2xx at ${this.at(cancelled.atMs)}), the gate has not decided ${Math.round((this.world.now - from) / 1000)} s later (counted from ${this.at(from)}; bound ${bound / 1000} s)`,
      );
    }
  }

  /**
   * The regions' own final states decide the gate's: a region the gate settled unheard when its
   * re-sends gave up (`dcSettledUnheard`), or that never had the job, counts as the gate's view says.
   */
  private checkGateStatus(spec: JobSpec, jobIn: (region: string) => Job | undefined, gateJob: GateJob): void {
    const outcomes = spec.regions.map((region) => {
      const job = jobIn(region);
      const viewed = STATUS_OF[gateJob.dcStatus[region] ?? 'running'];
      if (!job || gateJob.dcSettledUnheard?.includes(region)) return { region, status: viewed };
      if (job.status !== viewed) this.violate('gate-status-after-cancel', spec.jobId, `the gate holds ${region} ${gateJob.dcStatus[region]}, the region ended it ${job.status}`);
      return { region, status: job.status };
    });
    const expected = SEVERITY.find((status) => outcomes.some((outcome) => outcome.status === status));
    const status = gateJobStatus(gateJob);
    if (expected !== undefined && status !== expected) {
      this.violate('gate-status-after-cancel', spec.jobId, `every region ended (${outcomes.map((o) => `${o.region} ${o.status}`).join(', ')}), the gate reports ${status}, not ${expected}`);
    }
  }

  /**
   * `from`, or the end of the last outage on the decision's way to `region` (the gate down, the gate's
   * bus out, the region cut off) that overlaps the bound counted from it: the bound counts from its end.
   */
  private cancelStartMs(region: string, from: number): number {
    return this.outagesPassed(from, CANCEL_REACHES_REGION_MS, (f) =>
      f.kind === 'gate-down' || (f.kind === 'region-cut' && f.region === region) || (f.kind === 'bus-outage' && f.node === GATE),
    );
  }

  /** `from`, or the end of the last of the outages `on` picks that overlaps the bound counted from it. */
  private outagesPassed(from: number, boundMs: number, on: (fault: ScheduledFault) => boolean): number {
    const windows = this.world.plan.faults.flatMap((f) =>
      on(f) && 'fromMs' in f && 'untilMs' in f ? [{ fromMs: SIM_EPOCH + f.fromMs, untilMs: SIM_EPOCH + f.untilMs }] : [],
    );
    let start = from;
    for (let moved = true; moved; ) {
      moved = false;
      for (const w of windows) {
        if (w.fromMs <= start + boundMs && w.untilMs > start) {
          start = w.untilMs;
          moved = true;
        }
      }
    }
    return start;
  }

  private at(ms: number): string {
    return `${((ms - SIM_EPOCH) / 1000).toFixed(3)} s`;
  }
}
