import type { AgentKind, PoolConfigInput } from '../../domain/pools/pool-config.js';

/** Every fault the simulator can inject; `--faults` picks a subset (default: all). */
export const FAULT_KINDS = [
  'drop',
  'duplicate',
  'delay',
  'reorder',
  'crash',
  'redelivery',
  'index-lag',
  'timer-loss',
  'gate-down',
  'region-cut',
  'bus-outage',
  'takeover',
  'worker-dies',
  'worker-hangs',
  'extension-no-progress',
  'worker-recovers',
  'agent-dies',
  'agent-slow',
  'agent-ignores-terminate',
  'agent-stops-checkpointing',
  'agent-late-result',
  'worker-bursts',
  'pool-cancel',
  'worker-extends-then-dies',
  'agent-gives-back',
  'key-rotation',
  'slow-calls',
  'clock-skew',
  'job-cancel',
] as const;
export type FaultKind = (typeof FAULT_KINDS)[number];

/**
 * `bursts`: reports every 0.1–1.5 s (most within the coalescing window), half of them rises, half its last value again; from its fault on it falls silent or sends only its last value.
 * `extends-then-dies`: from its fault on, asks for an extension after each report (with progress, so it is granted), then a few reports later falls silent for good.
 */
export type WorkerBehaviour = 'normal' | 'dies' | 'hangs' | 'extension-no-progress' | 'recovers' | 'bursts' | 'extends-then-dies';

export interface WorkerSpec {
  workerId: string;
  workflowId: string;
  region: string;
  behaviour: WorkerBehaviour;
  /** How long the work takes; a worker still working at its deadline must be timed out. */
  durationMs: number;
  /** When the behaviour's fault starts, from the worker's start. */
  faultAfterMs: number;
  /**
   * Calls as the shipped SDK does (`startWorkflow`), for the cost model: a first report at once,
   * progress on a fixed period from the start, and a heartbeat after each silence this long (the
   * job's stuck threshold ÷ 4). Absent, the worker reports on a jittered period only.
   */
  sdkHeartbeatMs?: number;
}

export interface JobSpec {
  jobId: string;
  /** Submitted through the gate (gate-coordinated) or straight to its one region (local authority). */
  viaGate: boolean;
  regions: string[];
  timeoutSeconds: number;
  stuckThresholdSeconds: number;
  submitAtMs: number;
  workers: WorkerSpec[];
}

/** `gives-back`: says `terminated` unasked at its first heartbeat of each attempt, handing the item back, and claims again. */
export type AgentBehaviour = 'normal' | 'dies' | 'slow' | 'ignores-terminate' | 'stops-checkpointing' | 'late-result' | 'gives-back';

/** One agent of a pool: it claims items one after another until the pool stops or the run ends. */
export interface AgentSpec {
  agentId: string;
  kind: AgentKind;
  behaviour: AgentBehaviour;
  /** When the behaviour's fault starts, from the pool's creation, and how long it lasts (dying lasts). */
  faultAfterMs: number;
  faultForMs: number;
}

/** An agent pool: created at its time in one region, worked by its agents, watched by a human. */
export interface PoolSpec {
  poolId: string;
  region: string;
  createAtMs: number;
  /** Each item and how long one attempt's work takes (a slow agent takes three times as long). */
  items: Array<{ itemId: string; workMs: number }>;
  config: PoolConfigInput;
  agents: AgentSpec[];
  /** The human answers escalations and redrives the DLQ every this often; undefined: never. */
  humanEveryMs?: number;
  /**
   * Agents beat as the shipped SDK does (agent.ts), for the cost model: every this long
   * (`sdkAgentHeartbeatMs`) and once just after each checkpoint request opens. Absent, they beat at
   * the cadence each claim answers (`heartbeatIntervalSeconds`) only, as the CI seeds' agents do.
   */
  sdkAgentHeartbeatMs?: number;
}

/** Faults with a time and a place: each can be dropped by the shrinker. */
export type ScheduledFault =
  | { kind: 'gate-down'; fromMs: number; untilMs: number }
  | { kind: 'region-cut'; region: string; fromMs: number; untilMs: number }
  | { kind: 'bus-outage'; node: string; fromMs: number; untilMs: number }
  | { kind: 'takeover'; jobId: string; region: string; atMs: number }
  /** The operator cancels a pool (`POST /pools/{id}/cancel`), retried like any client call. */
  | { kind: 'pool-cancel'; poolId: string; atMs: number }
  /**
   * A client cancels a job (`POST /jobs/{id}/cancel`): through the gate for a gate-coordinated job, at
   * its region for a local one; retried like any client call, a 409 (already ended or decided) is an answer.
   * `atRegion`: a gate-coordinated job cancelled at that one of its regions instead of through the gate.
   */
  | { kind: 'job-cancel'; jobId: string; atMs: number; atRegion?: string }
  /** The scheduled rotation adds a key to the world's token secret; each region then cold-starts one container that reads it. */
  | { kind: 'key-rotation'; atMs: number };

/** Per-message probabilities (and the GSI lag bound); the shrinker zeroes them one by one. */
export interface Rates {
  drop: number;
  duplicate: number;
  delay: number;
  reorder: number;
  crash: number;
  redelivery: number;
  timerLoss: number;
  indexLagMaxMs: number;
  /**
   * Each of a handler's store calls takes up to this long on the one clock (`slow-calls`), and each
   * reading of the clock up to a millisecond more: time passes while the handler runs, between its
   * reads and its decision, as in a Lambda.
   */
  callLatencyMaxMs: number;
  /**
   * A wake-up may arrive up to this long before its due time by the clock of the handler it reaches
   * (`clock-skew`): the host that armed it and the one it fires on keep slightly different time.
   */
  wakeUpSkewMaxMs: number;
  /** A container's re-read of the key ring fails (a Secrets Manager outage or throttle); a cold start's read never does. */
  keyReadFailure: number;
}

export interface Plan {
  seed: number;
  regions: string[];
  jobs: JobSpec[];
  faults: ScheduledFault[];
  rates: Rates;
  progressEveryMs: number;
  pools: PoolSpec[];
}

export const NO_RATES: Rates = { drop: 0, duplicate: 0, delay: 0, reorder: 0, crash: 0, redelivery: 0, timerLoss: 0, indexLagMaxMs: 0, callLatencyMaxMs: 0, wakeUpSkewMaxMs: 0, keyReadFailure: 0 };
