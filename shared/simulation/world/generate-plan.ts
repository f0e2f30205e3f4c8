import { FAULT_KINDS, type FaultKind, type JobSpec, type Plan, type ScheduledFault, type WorkerBehaviour, type WorkerSpec } from './plan.js';
import { generatePools } from './generate-pools.js';
import { Rng } from './rng.js';

export interface PlanOptions {
  jobs: number;
  regions: number;
  pools: number;
  faults: readonly FaultKind[];
  /** Longest job timeout drawn, in seconds. */
  maxTimeoutSeconds?: number;
  progressEveryMs?: number;
}

export const DEFAULT_PLAN_OPTIONS: PlanOptions = { jobs: 4, regions: 2, pools: 0, faults: FAULT_KINDS };

/**
 * When a worker's fault starts. An `extends-then-dies` worker's falls 118–158 s before its job's
 * deadline (the same draw, folded in; no extra draw), so it dies 77–117 s before it holding grants:
 * it is failed (about two minutes after its last call) after the job's own timeout and before the
 * deadline its grants made, the corner where a grant could outlive its worker.
 */
const faultAfterSeconds = (behaviour: WorkerBehaviour, drawn: number, timeoutSeconds: number): number =>
  behaviour === 'extends-then-dies' ? Math.max(0, timeoutSeconds - 118 - (drawn % 41)) : drawn;

/** A stuck threshold (1 h) no drawn job reaches before its deadline. */
const STUCK_DETECTION_OUT_OF_THE_WAY = 3_600;

export const REGION_NAMES = ['us-east-1', 'eu-west-1', 'ap-south-1', 'us-west-2', 'sa-east-1'];

/** A seed's world: jobs, workers, pools, agents and faults, all drawn from the seed (its own stream, so runs replay). */
export function generatePlan(seed: number, options: PlanOptions): Plan {
  const rng = new Rng(seed, 1);
  const on = (kind: FaultKind) => options.faults.includes(kind);
  const regions = REGION_NAMES.slice(0, Math.max(1, Math.min(options.regions, REGION_NAMES.length)));
  const maxTimeout = options.maxTimeoutSeconds ?? 600;
  const behaviours: WorkerBehaviour[] = [
    'normal',
    ...(on('worker-dies') ? (['dies'] as const) : []),
    ...(on('worker-hangs') ? (['hangs'] as const) : []),
    ...(on('extension-no-progress') ? (['extension-no-progress'] as const) : []),
    ...(on('worker-recovers') ? (['recovers'] as const) : []),
    ...(on('worker-bursts') ? (['bursts'] as const) : []),
    ...(on('worker-extends-then-dies') ? (['extends-then-dies'] as const) : []),
  ];

  const jobs: JobSpec[] = [];
  for (let j = 0; j < options.jobs; j++) {
    const jobId = `job-${seed}-${j}`;
    const viaGate = regions.length > 1 && rng.chance(0.6);
    const jobRegions = viaGate ? regions : [rng.pick(regions)];
    const timeoutSeconds = rng.int(60, maxTimeout);
    // A job whose stuck threshold is past its deadline leaves a dead worker's grants to the deadline
    // alone: only there can they outlive the worker (drawn only with that kind, so older plans stay).
    // Local authority only: the gate's own stuck threshold (contract) would end a gate-coordinated one first.
    const stuckThresholdSeconds = !viaGate && on('worker-extends-then-dies') && rng.chance(0.5) ? STUCK_DETECTION_OUT_OF_THE_WAY : rng.int(30, 180);
    const workers: WorkerSpec[] = [];
    for (const region of jobRegions) {
      for (let w = 0; w < rng.int(1, 2); w++) {
        const behaviour = rng.chance(0.5) ? 'normal' : rng.pick(behaviours);
        workers.push({
          workerId: `wk-${j}-${region}-${w}`,
          workflowId: `wf-${region}-${w}`,
          region,
          behaviour,
          // Half finish well inside the deadline, half would overrun it (one that dies holding grants, always).
          durationMs: (rng.int(10, Math.round(timeoutSeconds * 1.6)) + (behaviour === 'extends-then-dies' ? timeoutSeconds : 0)) * 1000,
          faultAfterMs: faultAfterSeconds(behaviour, rng.int(0, timeoutSeconds), timeoutSeconds) * 1000,
        });
      }
    }
    jobs.push({ jobId, viaGate, regions: jobRegions, timeoutSeconds, stuckThresholdSeconds, submitAtMs: rng.int(0, 120) * 1000, workers });
  }

  const faults: ScheduledFault[] = [];
  const window = () => {
    const fromMs = rng.int(0, maxTimeout) * 1000;
    return { fromMs, untilMs: fromMs + rng.int(30, 600) * 1000 };
  };
  if (on('gate-down') && regions.length > 1 && rng.chance(0.5)) faults.push({ kind: 'gate-down', ...window() });
  if (on('region-cut') && regions.length > 1 && rng.chance(0.5)) faults.push({ kind: 'region-cut', region: rng.pick(regions), ...window() });
  if (on('bus-outage') && rng.chance(0.5)) faults.push({ kind: 'bus-outage', node: rng.pick([...regions, 'gate']), ...window() });
  if (on('takeover')) {
    for (const job of jobs) {
      if (rng.chance(0.3)) faults.push({ kind: 'takeover', jobId: job.jobId, region: rng.pick(job.regions), atMs: job.submitAtMs + rng.int(1, job.timeoutSeconds + 60) * 1000 });
    }
  }
  // Their own stream: adding pools leaves a seed's jobs and faults as they were.
  const pools = generatePools(new Rng(seed, 3), seed, options.pools, regions, options.faults);
  // Drawn last, so the other kinds' draws stay as they were.
  if (on('pool-cancel')) {
    for (const pool of pools) {
      if (rng.chance(0.3)) faults.push({ kind: 'pool-cancel', poolId: pool.poolId, atMs: pool.createAtMs + rng.int(5, 180) * 1000 });
    }
  }
  // After pool-cancel's, so those stay as they were. Within the submissions' and claims' first minutes,
  // so tokens are signed by a container that read the new key and checked by one that did not.
  if (on('key-rotation') && rng.chance(0.6)) {
    for (let rotations = rng.int(1, 2); rotations > 0; rotations--) faults.push({ kind: 'key-rotation', atMs: rng.int(0, 180) * 1000 });
  }
  if (on('job-cancel')) faults.push(...drawJobCancels(new Rng(seed, 6), new Rng(seed, 7), jobs));
  const rate = (kind: FaultKind, p: number) => (on(kind) ? p : 0);
  return {
    seed,
    regions,
    jobs,
    faults,
    rates: {
      drop: rate('drop', 0.05),
      duplicate: rate('duplicate', 0.05),
      delay: rate('delay', 0.05),
      reorder: rate('reorder', 0.2),
      crash: rate('crash', 0.02),
      redelivery: rate('redelivery', 0.03),
      timerLoss: rate('timer-loss', 0.03),
      indexLagMaxMs: on('index-lag') ? 2_000 : 0,
      callLatencyMaxMs: on('slow-calls') ? 25 : 0,
      wakeUpSkewMaxMs: on('clock-skew') ? 10 : 0,
      keyReadFailure: rate('key-rotation', 0.2),
    },
    progressEveryMs: options.progressEveryMs ?? 10_000,
    pools,
  };
}

/**
 * `job-cancel`, from its own stream (6), so turning it on leaves every other draw of a seed as it was:
 * about 30 % of the jobs are cancelled by their client at a moment of their life, from their submission
 * to half a timeout past their deadline (a third of them after it, when the job has ended or is being
 * timed out: the cancel is then answered 409). One in ten comes within seconds of the submission,
 * racing the gate's fan-out to the regions. Four in ten of a gate-coordinated job's cancels are made at
 * one of its regions instead of through the gate, drawn from a stream of their own (7), so the cancels'
 * jobs and moments stay as they were.
 */
function drawJobCancels(rng: Rng, regionDraws: Rng, jobs: readonly JobSpec[]): ScheduledFault[] {
  const cancels: ScheduledFault[] = [];
  for (const job of jobs) {
    if (!rng.chance(0.3)) continue;
    const afterSeconds = rng.chance(0.1) ? rng.int(0, 3) : rng.int(0, Math.round(job.timeoutSeconds * 1.5));
    const atRegion = job.viaGate && regionDraws.chance(0.4) ? { atRegion: regionDraws.pick(job.regions) } : {};
    cancels.push({ kind: 'job-cancel', jobId: job.jobId, atMs: job.submitAtMs + afterSeconds * 1000, ...atRegion });
  }
  return cancels;
}
