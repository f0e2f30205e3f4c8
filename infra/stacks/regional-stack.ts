import { CfnOutput, RemovalPolicy, Stack, type StackProps } from 'aws-cdk-lib';
import { HttpMethod } from 'aws-cdk-lib/aws-apigatewayv2';
import type { Table } from 'aws-cdk-lib/aws-dynamodb';
import { EventBus } from 'aws-cdk-lib/aws-events';
import { Role } from 'aws-cdk-lib/aws-iam';
import { FunctionUrlAuthType, type FunctionUrl } from 'aws-cdk-lib/aws-lambda';
import type { Secret } from 'aws-cdk-lib/aws-secretsmanager';
import type { Queue } from 'aws-cdk-lib/aws-sqs';
import type { Construct } from 'constructs';
import { LambdaEnv } from '../../shared/config/lambda-env.js';
import { EVENT_SOURCE } from '../../shared/events/event-contract.js';
import { JobFinalStatus } from '../../shared/events/job-final-status.js';
import { JobGlobalCancel } from '../../shared/events/job-global-cancel.js';
import { JobGlobalTimeout } from '../../shared/events/job-global-timeout.js';
import { JobLeaderTransfer } from '../../shared/events/job-leader-transfer.js';
import { JobProgressReport } from '../../shared/events/job-progress-report.js';
import { JobTimeoutReport } from '../../shared/events/job-timeout-report.js';
import { eventBusArnIn, PhysicalNames } from '../config/physical-names.js';
import { reservedConcurrencyOf, type VigilConfig } from '../config/vigil-config.js';
import { BackstopSweep } from '../constructs/backstop-sweep.js';
import { BusForwardingRule, forwardingRulesOf } from '../constructs/bus-forwarding-rule.js';
import { BusSubscription } from '../constructs/bus-subscription.js';
import { grantAccess, type HandlerSpec } from '../constructs/handler-access.js';
import { Operations, throttleAlarmedOf } from '../constructs/operations.js';
import { deadLetterQueue } from '../constructs/secure-queue.js';
import { StateTable } from '../constructs/state-table.js';
import { TimerDelivery } from '../constructs/timer-delivery.js';
import { VigilFunction } from '../constructs/vigil-function.js';
import { VigilHttpApi } from '../constructs/vigil-http-api.js';
import { WorkerRouteThrottles } from '../config/route-throttles.js';
import { WorkflowTokenSecret } from '../constructs/workflow-token-secret.js';
import { regionalHandlers, TIMER_CONSUMER_TIMEOUT, workerUrlHandler, type RegionalHandlerName } from './regional-handlers.js';
import { poolAgentRoutes, poolClientRoutes } from '../../functions/pools/routes.js';
import { completeRoute, extensionRoute, jobWorkerRoutes, progressRoute } from '../../shared/local/job-worker-routes.js';
import { AgentFleetOperations } from '../constructs/agent-fleet-operations.js';
import { commonEnvironment } from '../constructs/vigil-function.js';

export interface RegionalStackProps extends StackProps {
  readonly config: VigilConfig;
}

/** Manager to gate events (seed 001 §10.2), forwarded to the gate region's bus. */
export const MANAGER_REPORT_TYPES = [JobProgressReport, JobTimeoutReport, JobLeaderTransfer, JobFinalStatus].map((e) => e.detailType);
/** Gate to manager decisions, addressed to one region by `detail.region`. */
export const GATE_DECISION_TYPES = [JobGlobalTimeout, JobGlobalCancel].map((e) => e.detailType);

/**
 * One region manager (one "DC"): its API, handlers, table, bus, timers and the forwarding of its
 * reports to the gate region. Deployed once per region in context `regions`.
 */
export class RegionalStack extends Stack {
  public readonly table: Table;
  public readonly bus: EventBus;
  public readonly timers: TimerDelivery;
  public readonly tokenSecret: Secret;
  /** Secrets Manager's rotation function for the token secret. */
  public readonly tokenKeyRotation: VigilFunction;
  public readonly api: VigilHttpApi;
  public readonly functions: Record<RegionalHandlerName, VigilFunction>;
  /** Context `workerFunctionUrl`: the worker and agent routes behind a Lambda function URL. */
  public readonly workerUrl: { fn: VigilFunction; url: FunctionUrl } | undefined;
  public readonly gateDecisionDlq: Queue;
  public readonly forwardToGateDlq: Queue;
  public readonly operations: Operations;
  public readonly agentFleetOperations: AgentFleetOperations;

  constructor(scope: Construct, id: string, props: RegionalStackProps) {
    super(scope, id, props);
    const { config } = props;
    const removalPolicy = config.deletionProtection ? RemovalPolicy.RETAIN : RemovalPolicy.DESTROY;

    const stateTable = new StateTable(this, 'JobsTable', { deletionProtection: config.deletionProtection, withWorkerIndex: true });
    this.table = stateTable.table;
    this.bus = new EventBus(this, 'Bus', { eventBusName: PhysicalNames.regionBus, description: 'Vigil region manager events' });
    this.timers = new TimerDelivery(this, 'Timers', {
      scheduleGroupName: PhysicalNames.regionScheduleGroup,
      consumerTimeout: TIMER_CONSUMER_TIMEOUT,
    });
    const tokenKey = new WorkflowTokenSecret(this, 'WorkflowTokenKey', { removalPolicy, tracing: config.tracing, systemLogLevel: config.systemLogLevel });
    this.tokenSecret = tokenKey.secret;
    this.tokenKeyRotation = tokenKey.rotation.fn;
    this.functions = this.createFunctions(config, removalPolicy);
    this.workerUrl = config.workerFunctionUrl ? this.createWorkerUrl(config, removalPolicy) : undefined;

    this.api = new VigilHttpApi(this, 'HttpApi', {
      apiName: `vigil-${this.region}`,
      description: `Vigil region manager API (${this.region})`,
      logRemovalPolicy: removalPolicy,
    });
    this.addRoutes();

    this.timers.consumeWith(this.functions.FireJobTimer);
    new BackstopSweep(this, 'BackstopSweep', this.functions.SweepJobTimers);

    this.gateDecisionDlq = deadLetterQueue(this, 'GateDecisionDlq', 'gate decisions (JobGlobalTimeout/JobGlobalCancel) to on-gate-decision');
    new BusSubscription(this, 'GateDecisions', {
      bus: this.bus,
      eventPattern: { source: [EVENT_SOURCE], detailType: GATE_DECISION_TYPES, detail: { region: [this.region] } },
      consumer: this.functions.OnGateDecision,
      deadLetterQueue: this.gateDecisionDlq,
      description: `Gate decisions for ${this.region} to on-gate-decision`,
    });

    this.forwardToGateDlq = deadLetterQueue(this, 'ForwardToGateDlq', `manager reports forwarded to the gate bus in ${config.gateRegion}`);
    new BusForwardingRule(this, 'ForwardToGate', {
      sourceBus: this.bus,
      // Only gate-coordinated jobs name a gate; local-authority jobs' reports stay in the region.
      eventPattern: { source: [EVENT_SOURCE], detailType: MANAGER_REPORT_TYPES, detail: { gateRegion: [config.gateRegion] } },
      targetBusArn: eventBusArnIn(this, config.gateRegion, PhysicalNames.gateBus),
      role: new Role(this, 'ForwardToGateRole', {
        assumedBy: forwardingRulesOf(this, PhysicalNames.regionBus),
        description: `EventBridge: put manager reports on ${PhysicalNames.gateBus} in ${config.gateRegion}`,
      }),
      deadLetterQueue: this.forwardToGateDlq,
      description: `Manager reports to ${PhysicalNames.gateBus} (${config.gateRegion})`,
    });

    this.operations = new Operations(this, 'Operations', {
      dashboardName: `Vigil-${this.region}`,
      service: commonEnvironment.POWERTOOLS_SERVICE_NAME,
      // A failed rotation leaves the current key current; alarmed so it is not left to fail every 30 days.
      functions: { ...this.functions, KeyRotation: this.tokenKeyRotation, ...(this.workerUrl ? { WorkerUrlApi: this.workerUrl.fn } : {}) },
      throttleAlarmed: {
        ...throttleAlarmedOf(regionalHandlers, this.functions),
        // Uncapped, it is throttled only with the whole account, which the functions above alarm on.
        ...(this.workerUrl && config.workerUrlConcurrency > 0 ? throttleAlarmedOf({ WorkerUrlApi: workerUrlHandler }, { WorkerUrlApi: this.workerUrl.fn }) : {}),
      },
      deadLetterQueues: {
        TimerQueue: this.timers.queueDlq,
        Scheduler: this.timers.schedulerDlq,
        GateDecisions: this.gateDecisionDlq,
        ForwardToGate: this.forwardToGateDlq,
      },
      timerQueue: this.timers.queue,
      timerConsumer: this.functions.FireJobTimer,
      stateTable,
      api: this.api,
      alarmEmail: config.alarmEmail,
    });

    this.agentFleetOperations = new AgentFleetOperations(this, 'AgentFleets', {
      dashboard: this.operations.dashboard,
      namespace: commonEnvironment.POWERTOOLS_METRICS_NAMESPACE,
      service: commonEnvironment.POWERTOOLS_SERVICE_NAME,
    });

    new CfnOutput(this, 'ApiUrl', { value: this.api.url, description: `Vigil region manager API in ${this.region}` });
    new CfnOutput(this, 'EventBusName', { value: this.bus.eventBusName });
    new CfnOutput(this, 'JobsTableName', { value: this.table.tableName });
    this.operations.notifications.notifyOn(this.agentFleetOperations.timeoutRateAlarm);
    new CfnOutput(this, 'DashboardName', { value: this.operations.dashboard.dashboardName });
    new CfnOutput(this, 'AlarmTopicArn', { value: this.operations.notifications.topic.topicArn, description: 'Subscribe to hear of every alarm of this region' });
  }

  private createFunctions(config: VigilConfig, removalPolicy: RemovalPolicy): Record<RegionalHandlerName, VigilFunction> {
    const entries = Object.entries(regionalHandlers) as [RegionalHandlerName, (typeof regionalHandlers)[RegionalHandlerName]][];
    const functions = {} as Record<RegionalHandlerName, VigilFunction>;
    for (const [name, spec] of entries) functions[name] = this.createFunction(name, spec, config, removalPolicy);
    return functions;
  }

  private createFunction(name: string, spec: HandlerSpec, config: VigilConfig, removalPolicy: RemovalPolicy): VigilFunction {
    // The Lambda wiring (shared/wiring/lambda-manager.ts) builds the whole manager from these at cold start.
    const managerEnvironment = {
      [LambdaEnv.jobsTableName]: this.table.tableName,
      [LambdaEnv.eventBusName]: this.bus.eventBusName,
      ...this.timers.environment,
      [LambdaEnv.defaultStuckThresholdSeconds]: String(config.policy.defaultStuckThresholdSeconds),
      [LambdaEnv.gateFallbackSeconds]: String(config.policy.gateFallbackSeconds),
      [LambdaEnv.gateReportIntervalSeconds]: String(config.policy.gateReportIntervalSeconds),
    };
    const { access } = spec;
    const reservedConcurrency = reservedConcurrencyOf(config, spec.reservedConcurrency);
    const fn = new VigilFunction(this, name, {
      entry: spec.entry,
      description: `Vigil ${this.region}: ${spec.description}`,
      ...(spec.timeout !== undefined ? { timeout: spec.timeout } : {}),
      ...(spec.functionName !== undefined ? { functionName: spec.functionName } : {}),
      environment: access
        ? { ...managerEnvironment, ...(access.keySecret ? { [LambdaEnv.tokenSecretArn]: this.tokenSecret.secretArn } : {}) }
        : {},
      logRemovalPolicy: removalPolicy,
      tracing: config.tracing,
      systemLogLevel: config.systemLogLevel,
      ...(reservedConcurrency !== undefined ? { reservedConcurrency } : {}),
    });
    if (access) grantAccess(fn, access, { table: this.table, bus: this.bus, timers: this.timers, keySecret: this.tokenSecret });
    return fn;
  }

  /**
   * The worker and agent routes once more, behind a function URL: no IAM check (workers hold no AWS
   * credentials; each handler checks the token), and no API Gateway in between, so no per-request
   * charge and no per-route throttle: reserved concurrency caps what a flood can take instead.
   * Client routes are not served there.
   */
  private createWorkerUrl(config: VigilConfig, removalPolicy: RemovalPolicy): { fn: VigilFunction; url: FunctionUrl } {
    const fn = this.createFunction('WorkerUrlApi', workerUrlHandler, config, removalPolicy);
    const url = fn.handler.addFunctionUrl({ authType: FunctionUrlAuthType.NONE });
    new CfnOutput(this, 'WorkerUrl', { value: url.url, description: `Worker and agent routes of ${this.region}, token-authenticated` });
    return { fn, url };
  }

  private addRoutes(): void {
    const { api, functions: fn } = this;
    api.addClientRoute(HttpMethod.POST, '/jobs', fn.SubmitJob);
    api.addClientRoute(HttpMethod.GET, '/jobs/{jobId}', fn.GetJob);
    api.addClientRoute(HttpMethod.GET, '/jobs/{jobId}/tokens', fn.GetJobTokens);
    api.addClientRoute(HttpMethod.GET, '/jobs', fn.ListJobs);
    api.addClientRoute(HttpMethod.GET, '/jobs/{jobId}/history', fn.GetJobHistory);
    api.addClientRoute(HttpMethod.POST, '/jobs/{jobId}/cancel', fn.CancelJob);
    api.addClientRoute(HttpMethod.POST, '/jobs/{jobId}/takeover', fn.TakeOverJob);
    api.addClientRoute(HttpMethod.POST, '/workers/{workerId}/failure', fn.ReportWorkerFailure);
    // The worker URL serves the same two lists (functions/worker/function-url.ts).
    const jobWorkerFunctions = new Map([
      [progressRoute, { fn: fn.ReportProgress, throttle: WorkerRouteThrottles.progress }],
      [completeRoute, { fn: fn.CompleteWorkflow, throttle: WorkerRouteThrottles.complete }],
      [extensionRoute, { fn: fn.RequestExtension, throttle: WorkerRouteThrottles.extensions }],
    ]);
    for (const route of jobWorkerRoutes) {
      const served = jobWorkerFunctions.get(route);
      if (!served) throw new Error(`no function serves the worker route ${route.method} ${route.path}`);
      api.addWorkerRoute(HttpMethod[route.method], route.path, served.fn, served.throttle);
    }
    for (const route of poolClientRoutes) api.addClientRoute(HttpMethod[route.method], route.path, fn.PoolClientApi);
    for (const route of poolAgentRoutes) api.addWorkerRoute(HttpMethod[route.method], route.path, fn.PoolAgentApi, WorkerRouteThrottles.poolAgent);
    api.addHealthRoute(fn.Health);
    api.addDocumentRoute(fn.OpenApi);
    api.addUnroutedRoute(fn.Unrouted);
  }
}
