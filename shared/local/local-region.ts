import { join } from 'node:path';
import { DynamoHistoryStore } from '../adapters/aws/dynamo-history-store.js';
import { DynamoJobStore } from '../adapters/aws/dynamo-job-store.js';
import { DynamoPoolStore } from '../adapters/aws/dynamo-pool-store.js';
import { ensureTable } from '../adapters/aws/jobs-table.js';
import { regionDynamo } from '../adapters/local/region-dynamo.js';
import type { LocalEventNetwork } from '../adapters/local/local-event-network.js';
import { LocalTimers } from '../adapters/local/local-timers.js';
import type { ManagerDeps } from '../app/manager-deps.js';
import { PageCursors } from '../app/page-cursors.js';
import { WorkflowTokens } from '../app/workflow-tokens.js';
import type { TimeoutPolicy } from '../domain/policy.js';
import type { Scheduler } from '../ports/scheduler.js';
import type { TimerRequest } from '../ports/timers.js';
import { PowertoolsTelemetry } from '../telemetry/powertools.js';
import { localContext } from './lambda-context.js';
import type { LocalMetrics } from './local-metrics.js';
import { loadOrCreateKeyRing } from './local-secret.js';
import { scheduledEvent } from './scheduled-event.js';
import { sqsTimerEvent } from './sqs-timer-event.js';
import type { LocalNode } from './local-node.js';
import { rearmStoredWakeUps } from '../app/rearm-stored-wake-ups.js';
import { lambdaHandler } from './lambda-module.js';
import { jitteredBackoff } from '../app/contention-backoff.js';

const fireJobTimerHandler = lambdaHandler(() => import('../../functions/timers/fire-job-timer.js'));
const onGateDecisionHandler = lambdaHandler(() => import('../../functions/events/on-gate-decision.js'));
const sweepJobTimersHandler = lambdaHandler(() => import('../../functions/timers/sweep-job-timers.js'));

export const LOCAL_JOBS_TABLE = 'vigil-jobs';

export type LocalRegion = LocalNode<ManagerDeps>;

export interface LocalRegionOptions {
  region: string;
  dataDir: string;
  policy: TimeoutPolicy;
  clock: Scheduler;
  network: LocalEventNetwork;
  metrics: LocalMetrics;
  /** Called with (timer, firedAt) as each wake-up starts: the benchmark's lateness probe. */
  onTimerFired?: (timer: TimerRequest, firedAt: number) => void;
}

/**
 * One region manager of the local cloud: its own dynalite (on disk), timers, bus endpoint and
 * token key. Timers, sweeps and gate decisions go through the same handler modules Lambda runs.
 */
export async function startLocalRegion(options: LocalRegionOptions): Promise<LocalRegion> {
  const { region, dataDir, clock, network, metrics } = options;
  const dynamo = await regionDynamo(join(dataDir, 'dynamodb', region), region);
  await ensureTable(dynamo.client, LOCAL_JOBS_TABLE, true);
  const telemetry = new PowertoolsTelemetry({ region }, (name, dimensions) => metrics.record(region, name, dimensions));

  const fireTimer = async (timer: TimerRequest) => {
    options.onTimerFired?.(timer, clock.now());
    const result = await (await fireJobTimerHandler())(sqsTimerEvent(timer, region), localContext('vigil-fire-job-timer', region));
    if (result.batchItemFailures.length > 0) throw new Error(`timer for job ${timer.jobId} failed; the sweep will retry it`);
  };
  const timers = new LocalTimers(clock, fireTimer, (error, timer) =>
    telemetry.warn('local timer failed', { jobId: timer.jobId, region, error: String(error) }),
  );
  // One key per region, as deployed: its worker tokens and (derived) its page cursors.
  const keys = loadOrCreateKeyRing(join(dataDir, 'secrets', `${region}.key`), clock);
  const deps: ManagerDeps = {
    region,
    managerId: `${region}/local`,
    jobs: new DynamoJobStore(dynamo.doc, LOCAL_JOBS_TABLE),
    pools: new DynamoPoolStore(dynamo.doc, LOCAL_JOBS_TABLE),
    timers,
    bus: network.busFor(region),
    clock,
    backoff: jitteredBackoff,
    policy: options.policy,
    tokens: new WorkflowTokens(keys),
    cursors: new PageCursors(keys),
    telemetry,
    history: new DynamoHistoryStore(dynamo.doc, LOCAL_JOBS_TABLE, () => clock.now()),
  };

  network.consume(region, async (event) => {
    await (await onGateDecisionHandler())(event, localContext('vigil-on-gate-decision', region));
  });

  const sweep = async () => {
    await (await sweepJobTimersHandler())(scheduledEvent(region), localContext('vigil-sweep-job-timers', region));
  };
  return {
    deps,
    timers,
    dynamo,
    sweep,
    resume: async () => void (await rearmStoredWakeUps(deps.jobs, timers)),
    close: async () => {
      timers.stop();
      await dynamo.close();
    },
  };
}
