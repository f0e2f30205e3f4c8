import { resolvePoolConfig, templateCommands } from '../../domain/pools/pool-config.js';
import type { PoolWorkload } from './pool-workload.js';
import { PRICES } from './prices.js';
import { NO_USAGE, type Usage } from './usage.js';
import type { Workload } from './workload.js';

const MANAGER_LOOP_MS = 30_000;
const GATE_LOOP_MS = 15_000;
/** A job item with its workflows, about 1 KB each: a strongly consistent read of it costs this many 4 KB units. */
const readUnitsPerJobScan = (workflows: number) => Math.ceil((1 + workflows) / 4);

/**
 * The seeds' own design (seed 000/001) mapped onto the same services: every progress report is
 * written as it comes (no coalescing), a 30 s manager loop per region reads every running job and
 * reports it to the gate, and a 15 s gate loop reads every gate job. Counted per job for the
 * workload's duration, plus the loops' fixed invocations per hour.
 */
export function pollingDesign(workload: Workload): { perJob: Usage; fixedPerHour: Usage } {
  const { regions, workflows, durationMs, progressEveryMs } = workload;
  const reports = Math.floor(durationMs / progressEveryMs) * workflows * regions;
  const managerTicks = Math.ceil(durationMs / MANAGER_LOOP_MS) * regions;
  const gated = regions > 1;
  const gateTicks = gated ? Math.ceil(durationMs / GATE_LOOP_MS) : 0;
  const calls = 1 + workflows * regions; // submit + completions
  return {
    perJob: {
      ...NO_USAGE,
      lambdaInvocations: reports + calls,
      // Each report updates the workflow and the job's last progress; submit and completions write too.
      dynamoWriteUnits: reports * 2 + (1 + workflows) * regions + workflows * regions,
      dynamoReadUnits: reports + managerTicks * readUnitsPerJobScan(workflows) + gateTicks,
      eventBridgeEvents: gated ? managerTicks + regions : 0,
      forwardedEvents: gated ? managerTicks + regions : 0,
      apiRequestsWorker: reports + workflows * regions,
      apiRequestsClient: 1,
    },
    fixedPerHour: { ...NO_USAGE, lambdaInvocations: (3_600_000 / MANAGER_LOOP_MS) * regions + (regions > 1 ? 3_600_000 / GATE_LOOP_MS : 0) },
  };
}

/**
 * Step Functions Standard, one execution per job per region: Start, a Parallel state, a
 * `.waitForTaskToken` task per workflow with `HeartbeatSeconds` for stuck detection, End. Step
 * Functions bills a transition each time a step is executed, so each state counts once (as in the
 * pool formula below); Start and End are counted generously. `SendTaskHeartbeat` calls are API
 * requests, not state transitions, so the workers' progress costs nothing; there is no extension
 * and no cross-region timeout.
 */
export function stepFunctionsPerJob(workload: Workload): { transitions: number; usd: number } {
  const transitions = workload.regions * (3 + workload.workflows);
  return { transitions, usd: transitions * PRICES.stepFunctionsStandardPerTransition };
}

/**
 * Temporal Cloud, one workflow per job per region: the workflow start, a deadline timer, and per
 * workflow an activity start plus its recorded heartbeats. The SDK throttles heartbeats to one per
 * min(0.8 × heartbeat timeout, 60 s) (heartbeat timeout = the 120 s stuck threshold), so a
 * report every 10 s records one heartbeat a minute.
 */
export function temporalPerJob(workload: Workload): { actions: number; usd: number } {
  const recordedEveryMs = Math.max(workload.progressEveryMs, Math.min(0.8 * 120_000, 60_000));
  const heartbeats = Math.floor(workload.durationMs / recordedEveryMs);
  const actions = workload.regions * (2 + workload.workflows * (1 + heartbeats));
  return { actions, usd: actions * PRICES.temporalCloudPerAction };
}

/** Template commands of a pool workload (at least one step per item). */
const commandsOf = (workload: PoolWorkload) => Math.max(1, templateCommands(resolvePoolConfig(workload.config)).length);

/**
 * Step Functions Standard over the same pool: one execution whose Map state runs each item as one
 * `.waitForTaskToken` task per template command (TimeoutSeconds = the command limit, HeartbeatSeconds
 * = the checkpoint timeout: the agent's heartbeats are SendTaskHeartbeat calls, not transitions)
 * and a Pass state recording the result, each entered once per attempt. A retried attempt enters
 * them again. Transitions = 3 (start, Map, end) + items × (commands + 1) × attempts per item.
 */
export function stepFunctionsPoolPerItem(workload: PoolWorkload, attemptsPerItem = 1): { transitions: number; usd: number } {
  const transitions = 3 / workload.items + (commandsOf(workload) + 1) * attemptsPerItem;
  return { transitions, usd: transitions * PRICES.stepFunctionsStandardPerTransition };
}

/**
 * Temporal Cloud: one workflow per pool; per item one activity per command per attempt, plus the
 * heartbeats the SDK records (throttled to one per min(0.8 × heartbeat timeout, 60 s), the
 * heartbeat timeout being the checkpoint timeout). Actions = 1 + items × commands × (1 + heartbeats).
 */
export function temporalPoolPerItem(workload: PoolWorkload, attemptsPerItem = 1): { actions: number; usd: number } {
  const recordedEveryMs = Math.min(0.8 * workload.config.checkpoint_timeout_secs * 1000, 60_000);
  const heartbeats = Math.floor(workload.workMs / commandsOf(workload) / recordedEveryMs);
  const actions = 1 / workload.items + commandsOf(workload) * (1 + heartbeats) * attemptsPerItem;
  return { actions, usd: actions * PRICES.temporalCloudPerAction };
}
