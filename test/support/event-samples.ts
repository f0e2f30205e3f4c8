import type { BusEvent } from '../../shared/ports/event-bus.js';
import { JobFinalStatus } from '../../shared/events/job-final-status.js';
import { JobGlobalCancel } from '../../shared/events/job-global-cancel.js';
import { JobGlobalTimeout } from '../../shared/events/job-global-timeout.js';
import { JobLeaderTransfer } from '../../shared/events/job-leader-transfer.js';
import { JobProgressReport } from '../../shared/events/job-progress-report.js';
import { JobTimedOut } from '../../shared/events/job-timed-out.js';
import { JobTimeoutReport } from '../../shared/events/job-timeout-report.js';
import { AgentCompleted } from '../../shared/events/pools/agent-completed.js';
import { AgentStalled } from '../../shared/events/pools/agent-stalled.js';
import { AgentStarted } from '../../shared/events/pools/agent-started.js';
import { CheckpointMissed } from '../../shared/events/pools/checkpoint-missed.js';
import { CheckpointRequested } from '../../shared/events/pools/checkpoint-requested.js';
import { CommandCompleted } from '../../shared/events/pools/command-completed.js';
import { CommandStarted } from '../../shared/events/pools/command-started.js';
import { ItemDeadLettered } from '../../shared/events/pools/item-dead-lettered.js';
import { PoolFinished } from '../../shared/events/pools/pool-finished.js';
import { TaskEscalated } from '../../shared/events/pools/task-escalated.js';
import { TimeoutOccurred } from '../../shared/events/pools/timeout-occurred.js';
import { TimeoutResolved } from '../../shared/events/pools/timeout-resolved.js';

export interface EventSample {
  /** The event module's file name under shared/events/. */
  module: string;
  detailType: string;
  event: BusEvent;
  parse(detail: unknown): unknown;
}

const at = '2031-01-15T10:00:00.000Z';

/** One valid event of every type in shared/events/, built with the module's own `build`. */
export const eventSamples: EventSample[] = [
  {
    module: 'job-final-status.ts',
    detailType: JobFinalStatus.detailType,
    event: JobFinalStatus.build({
      jobId: 'job:final',
      region: 'eu-west-1',
      gateRegion: 'us-east-1',
      managerId: 'manager-eu-west-1',
      status: 'TIMED_OUT',
      timeoutReason: 'stuck',
      timestamp: at,
      fenceToken: 4,
    }),
    parse: JobFinalStatus.parse,
  },
  {
    module: 'job-global-cancel.ts',
    detailType: JobGlobalCancel.detailType,
    event: JobGlobalCancel.build({ jobId: 'job:cancel', region: 'eu-west-1', reason: 'operator' }),
    parse: JobGlobalCancel.parse,
  },
  {
    module: 'job-global-timeout.ts',
    detailType: JobGlobalTimeout.detailType,
    event: JobGlobalTimeout.build({
      jobId: 'job:global',
      region: 'eu-west-1',
      reason: 'timeout',
      timedOutAt: at,
      fenceToken: 2,
    }),
    parse: JobGlobalTimeout.parse,
  },
  {
    module: 'job-leader-transfer.ts',
    detailType: JobLeaderTransfer.detailType,
    event: JobLeaderTransfer.build({
      jobId: 'job:transfer',
      region: 'eu-west-1',
      gateRegion: 'us-east-1',
      newLeaderId: 'manager-eu-west-1-b',
      fenceToken: 5,
    }),
    parse: JobLeaderTransfer.parse,
  },
  {
    module: 'job-progress-report.ts',
    detailType: JobProgressReport.detailType,
    event: JobProgressReport.build({
      jobId: 'job:progress',
      region: 'eu-west-1',
      gateRegion: 'us-east-1',
      managerId: 'manager-eu-west-1',
      workflowsTotal: 10,
      workflowsCompleted: 4,
      workflowsFailed: 1,
      hasRecentProgress: true,
      lastProgressAt: at,
      timestamp: at,
      fenceToken: 1,
      totalExtensionsGranted: 12.5,
      maxWorkerExtension: 7.5,
      workersWithExtensions: 2,
    }),
    parse: JobProgressReport.parse,
  },
  {
    module: 'job-timed-out.ts',
    detailType: JobTimedOut.detailType,
    event: JobTimedOut.build({
      jobId: 'job:timed-out',
      region: 'eu-west-1',
      strategy: 'gate_coordinated',
      reason: 'global_timeout',
      startedAt: '2031-01-15T09:00:00.000Z',
      timedOutAt: at,
      fenceToken: 3,
    }),
    parse: JobTimedOut.parse,
  },
  {
    module: 'job-timeout-report.ts',
    detailType: JobTimeoutReport.detailType,
    event: JobTimeoutReport.build({
      jobId: 'job:report',
      region: 'eu-west-1',
      gateRegion: 'us-east-1',
      managerId: 'manager-eu-west-1',
      reason: 'timeout',
      elapsedSeconds: 3600.25,
      fenceToken: 1,
    }),
    parse: JobTimeoutReport.parse,
  },
];

const attempt = { poolId: 'pool-1', itemId: 'item-1', attempt: 2, agentId: 'agent-a', at };
const timeout = { timeoutType: 'command' as const, commandIndex: 1, commandType: 'shell', limitSeconds: 60, elapsedSeconds: 60.4 };
const poolSample = <S extends { detailType: string; build: (detail: never) => BusEvent; parse: (detail: unknown) => unknown }>(
  file: string,
  contract: S,
  detail: Parameters<S['build']>[0],
): EventSample => ({ module: `pools/${file}`, detailType: contract.detailType, event: contract.build(detail), parse: contract.parse });

/** One valid event of every agent-fleet type in shared/events/pools/. */
eventSamples.push(
  poolSample('agent-started.ts', AgentStarted, { ...attempt, kind: 'expert', timeoutSeconds: 600 }),
  poolSample('agent-completed.ts', AgentCompleted, { ...attempt, outcome: 'succeeded', durationSeconds: 12.5 }),
  poolSample('command-started.ts', CommandStarted, { ...attempt, commandIndex: 0, commandType: 'claude', timeoutSeconds: null }),
  poolSample('command-completed.ts', CommandCompleted, { ...attempt, commandIndex: 0, commandType: 'claude', outcome: 'failed', durationSeconds: 3 }),
  poolSample('timeout-occurred.ts', TimeoutOccurred, { ...attempt, ...timeout, action: 'dlq', terminateBy: at }),
  poolSample('timeout-resolved.ts', TimeoutResolved, { ...attempt, resolution: 'force', reason: 'timeout', itemState: 'dlq' }),
  poolSample('checkpoint-requested.ts', CheckpointRequested, { ...attempt, answerBy: at }),
  poolSample('checkpoint-missed.ts', CheckpointMissed, { ...attempt, misses: 2 }),
  poolSample('agent-stalled.ts', AgentStalled, { ...attempt, misses: 3, terminateBy: at }),
  poolSample('task-escalated.ts', TaskEscalated, {
    poolId: 'pool-1', itemId: 'item-1', escalationId: 'pool-1~item-1~3', timeoutCount: 3, question: 'How should we proceed?',
    options: ['split', 'clarify', 'increase_timeout', 'skip'], askedAt: at,
  }),
  poolSample('item-dead-lettered.ts', ItemDeadLettered, { poolId: 'pool-1', itemId: 'item-1', attempt: 2, timeoutCount: 1, at, timeout }),
  poolSample('pool-finished.ts', PoolFinished, { poolId: 'pool-1', status: 'FAILED', reason: 'item item-1 timed out (timeout_action: fail)', finishedAt: at }),
);
