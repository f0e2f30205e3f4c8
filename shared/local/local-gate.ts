import { join } from 'node:path';
import { DynamoGateStore } from '../adapters/aws/dynamo-gate-store.js';
import { DynamoHistoryStore } from '../adapters/aws/dynamo-history-store.js';
import { ensureTable } from '../adapters/aws/jobs-table.js';
import { regionDynamo } from '../adapters/local/region-dynamo.js';
import { GATE } from '../adapters/local/event-routes.js';
import type { LocalEventNetwork } from '../adapters/local/local-event-network.js';
import { LocalTimers } from '../adapters/local/local-timers.js';
import type { GateDeps } from '../app/gate/gate-deps.js';
import { PageCursors } from '../app/page-cursors.js';
import { defaultGatePolicy, extensionReportGraceFor } from '../domain/gate/gate-policy.js';
import type { Scheduler } from '../ports/scheduler.js';
import type { TimerRequest } from '../ports/timers.js';
import { PowertoolsTelemetry } from '../telemetry/powertools.js';
import { installGateResolver } from '../wiring/gate-resolver.js';
import type { Route } from './http-routes.js';
import { historyRoutes } from './history-routes.js';
import { openApiRoute } from './openapi-route.js';
import { gateSubmitJobBody } from '../contract/gate-requests.js';
import { gateJobAnswer, gateSubmittedJobAnswer } from '../contract/gate-responses.js';
import { cancelBody, jobPath } from '../contract/manager-requests.js';
import { cancelAnswer, healthAnswer } from '../contract/manager-responses.js';
import { localContext } from './lambda-context.js';
import type { LocalMetrics } from './local-metrics.js';
import { loadOrCreateKeyRing } from './local-secret.js';
import { LocalRegionManagers } from './local-region-managers.js';
import { scheduledEvent } from './scheduled-event.js';
import { sqsTimerEvent } from './sqs-timer-event.js';
import type { LocalNode } from './local-node.js';
import { rearmStoredWakeUps } from '../app/rearm-stored-wake-ups.js';
import { lambdaHandler } from './lambda-module.js';
import { jitteredBackoff } from '../app/contention-backoff.js';

const fireGateTimerHandler = lambdaHandler(() => import('../../functions/timers/fire-gate-timer.js'));
const onManagerReportHandler = lambdaHandler(() => import('../../functions/gate-events/on-manager-report.js'));
const sweepGateTimersHandler = lambdaHandler(() => import('../../functions/timers/sweep-gate-timers.js'));

export const LOCAL_GATE_TABLE = 'vigil-gate';

export type LocalGate = LocalNode<GateDeps>;

export interface LocalGateOptions {
  dataDir: string;
  regions: readonly string[];
  /** The region the gate is deployed in (the `gateRegion` of its jobs). */
  gateRegion: string;
  clock: Scheduler;
  network: LocalEventNetwork;
  metrics: LocalMetrics;
  gateStuckThresholdSeconds: number;
  /** How often the managers report (the gate waits one interval past a deadline for a lost extension report). */
  gateReportIntervalSeconds: number;
  /** Re-send period of a decision; the policy default (10 s) when absent. */
  rebroadcastSeconds?: number;
}

export const gateRoutes: Route[] = [
  {
    method: 'GET',
    path: '/health',
    doc: { summary: 'Liveness probe', auth: 'public', answers: { 200: { description: 'Up', schema: healthAnswer } } },
    handler: async () => (await import('../../functions/api/health.js')).handler,
  },
  openApiRoute('gate', async () => (await import('../../functions/gate-api/openapi.js')).handler),
  {
    method: 'POST',
    path: '/jobs',
    doc: {
      summary: 'Submit a gate-coordinated job to several regions (idempotent on jobId)',
      auth: 'iam',
      body: gateSubmitJobBody,
      answers: {
        201: { description: 'Accepted; per region, each workflow with its worker token', schema: gateSubmittedJobAnswer },
        200: { description: 'The same jobId and body were already accepted', schema: gateSubmittedJobAnswer },
      },
      errors: [409, 503],
    },
    handler: async () => (await import('../../functions/gate-api/submit-job.js')).handler,
  },
  {
    method: 'GET',
    path: '/jobs/{jobId}',
    doc: { summary: 'The global decision and the per-region view', auth: 'iam', path: jobPath, answers: { 200: { description: 'The job', schema: gateJobAnswer } } },
    handler: async () => (await import('../../functions/gate-api/get-job.js')).handler,
  },
  {
    method: 'POST',
    path: '/jobs/{jobId}/cancel',
    doc: {
      summary: 'Cancel the job in every region',
      auth: 'iam',
      path: jobPath,
      body: cancelBody,
      answers: { 200: { description: 'Cancelled', schema: cancelAnswer } },
      errors: [409],
    },
    handler: async () => (await import('../../functions/gate-api/cancel-job.js')).handler,
  },
  ...historyRoutes({
    listJobs: async () => (await import('../../functions/gate-api/list-jobs.js')).handler,
    getJobHistory: async () => (await import('../../functions/gate-api/get-job-history.js')).handler,
  }),
];

/**
 * The gate of the local cloud: its own dynalite on disk, timers and bus endpoint. While the
 * network says the gate is down it neither hears, says nor decides anything; its timers stay in
 * its timer index and the sweep fires them when it is back.
 */
export async function startLocalGate(options: LocalGateOptions): Promise<LocalGate> {
  const { clock, network, metrics } = options;
  const dynamo = await regionDynamo(join(options.dataDir, 'dynamodb', GATE), options.gateRegion);
  await ensureTable(dynamo.client, LOCAL_GATE_TABLE, false);
  const telemetry = new PowertoolsTelemetry({ region: options.gateRegion, role: 'gate' }, (name, dimensions) =>
    metrics.record(GATE, name, dimensions),
  );
  const fireTimer = async (timer: TimerRequest) => {
    if (network.faults.gateDown) throw new Error('gate is down');
    const result = await (await fireGateTimerHandler())(sqsTimerEvent(timer, options.gateRegion), localContext('vigil-fire-gate-timer', options.gateRegion));
    if (result.batchItemFailures.length > 0) throw new Error(`gate timer for job ${timer.jobId} failed; the sweep will retry it`);
  };
  const timers = new LocalTimers(clock, fireTimer, (error, timer) =>
    telemetry.warn('local gate timer did not run', { jobId: timer.jobId, error: String(error) }),
  );
  const deps: GateDeps = {
    gateRegion: options.gateRegion,
    gates: new DynamoGateStore(dynamo.doc, LOCAL_GATE_TABLE, () => clock.now()),
    regions: new LocalRegionManagers(options.regions, network),
    timers,
    bus: network.busFor(GATE),
    clock,
    backoff: jitteredBackoff,
    policy: {
      ...defaultGatePolicy,
      gateStuckThresholdSeconds: options.gateStuckThresholdSeconds,
      extensionReportGraceSeconds: extensionReportGraceFor(options.gateReportIntervalSeconds),
      rebroadcastSeconds: options.rebroadcastSeconds ?? defaultGatePolicy.rebroadcastSeconds,
    },
    telemetry,
    history: new DynamoHistoryStore(dynamo.doc, LOCAL_GATE_TABLE, () => clock.now()),
    // As deployed, the gate's own key: it signs no tokens, only seals its jobs list's cursors.
    cursors: new PageCursors(loadOrCreateKeyRing(join(options.dataDir, 'secrets', `${GATE}.key`), clock)),
  };
  installGateResolver(async () => deps);
  network.consume(GATE, async (event) => {
    await (await onManagerReportHandler())(event, localContext('vigil-on-manager-report', options.gateRegion));
  });

  return {
    deps,
    timers,
    dynamo,
    sweep: async () => {
      if (network.faults.gateDown) return;
      await (await sweepGateTimersHandler())(scheduledEvent(options.gateRegion), localContext('vigil-sweep-gate-timers', options.gateRegion));
    },
    resume: async () => void (await rearmStoredWakeUps(deps.gates, timers)),
    close: async () => {
      timers.stop();
      await dynamo.close();
    },
  };
}
