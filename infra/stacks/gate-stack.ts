import { CfnOutput, RemovalPolicy, Stack, type StackProps } from 'aws-cdk-lib';
import { HttpMethod } from 'aws-cdk-lib/aws-apigatewayv2';
import type { Table } from 'aws-cdk-lib/aws-dynamodb';
import { EventBus } from 'aws-cdk-lib/aws-events';
import { PolicyStatement, Role } from 'aws-cdk-lib/aws-iam';
import type { Secret } from 'aws-cdk-lib/aws-secretsmanager';
import type { Queue } from 'aws-cdk-lib/aws-sqs';
import type { Construct } from 'constructs';
import { LambdaEnv } from '../../shared/config/lambda-env.js';
import { EVENT_SOURCE } from '../../shared/events/event-contract.js';
import { eventBusArnIn, functionArnIn, PhysicalNames } from '../config/physical-names.js';
import { reservedConcurrencyOf, type VigilConfig } from '../config/vigil-config.js';
import { BackstopSweep } from '../constructs/backstop-sweep.js';
import { BusForwardingRule, forwardingRulesOf } from '../constructs/bus-forwarding-rule.js';
import { BusSubscription } from '../constructs/bus-subscription.js';
import { grantAccess } from '../constructs/handler-access.js';
import { PageCursorSecret } from '../constructs/workflow-token-secret.js';
import { Operations, throttleAlarmedOf } from '../constructs/operations.js';
import { deadLetterQueue } from '../constructs/secure-queue.js';
import { StateTable } from '../constructs/state-table.js';
import { TimerDelivery } from '../constructs/timer-delivery.js';
import { GATE_SERVICE_NAME, VigilFunction } from '../constructs/vigil-function.js';
import { VigilHttpApi } from '../constructs/vigil-http-api.js';
import { GATE_TIMER_CONSUMER_TIMEOUT, gateHandlers, type GateHandlerName } from './gate-handlers.js';
import { GATE_DECISION_TYPES, MANAGER_REPORT_TYPES } from './regional-stack.js';

export interface GateStackProps extends StackProps {
  readonly config: VigilConfig;
}

/**
 * The gate in `gateRegion`: the multi-DC API, the per-job global view, and the event plumbing
 * both ways: managers' reports arrive on `vigil-gate-bus`, and one rule per region forwards that
 * region's global timeout/cancel decisions to its `vigil-bus`.
 */
export class GateStack extends Stack {
  public readonly table: Table;
  public readonly bus: EventBus;
  public readonly timers: TimerDelivery;
  public readonly cursorSecret: Secret;
  /** Secrets Manager's rotation function for the cursor secret. */
  public readonly cursorKeyRotation: VigilFunction;
  public readonly api: VigilHttpApi;
  public readonly functions: Record<GateHandlerName, VigilFunction>;
  public readonly managerReportDlq: Queue;
  public readonly forwardDecisionsDlq: Queue;
  public readonly forwardDecisionsRole: Role;
  public readonly decisionForwarding: Record<string, BusForwardingRule> = {};
  public readonly operations: Operations;

  constructor(scope: Construct, id: string, props: GateStackProps) {
    super(scope, id, props);
    const { config } = props;
    const removalPolicy = config.deletionProtection ? RemovalPolicy.RETAIN : RemovalPolicy.DESTROY;

    const stateTable = new StateTable(this, 'GateTable', { deletionProtection: config.deletionProtection, withWorkerIndex: false });
    this.table = stateTable.table;
    this.bus = new EventBus(this, 'Bus', { eventBusName: PhysicalNames.gateBus, description: 'Vigil gate: manager reports in, decisions out' });
    this.timers = new TimerDelivery(this, 'Timers', {
      scheduleGroupName: PhysicalNames.gateScheduleGroup,
      consumerTimeout: GATE_TIMER_CONSUMER_TIMEOUT,
    });
    const cursorKey = new PageCursorSecret(this, 'PageCursorKey', { removalPolicy, tracing: config.tracing, systemLogLevel: config.systemLogLevel });
    this.cursorSecret = cursorKey.secret;
    this.cursorKeyRotation = cursorKey.rotation.fn;
    this.functions = this.createFunctions(config, removalPolicy);
    this.grantSubmitToRegions(config.regions);

    this.api = new VigilHttpApi(this, 'HttpApi', {
      apiName: 'vigil-gate',
      description: `Vigil gate API (${this.region})`,
      logRemovalPolicy: removalPolicy,
    });
    this.api.addClientRoute(HttpMethod.POST, '/jobs', this.functions.SubmitJob);
    this.api.addClientRoute(HttpMethod.GET, '/jobs/{jobId}', this.functions.GetJob);
    this.api.addClientRoute(HttpMethod.GET, '/jobs', this.functions.ListJobs);
    this.api.addClientRoute(HttpMethod.GET, '/jobs/{jobId}/history', this.functions.GetJobHistory);
    this.api.addClientRoute(HttpMethod.POST, '/jobs/{jobId}/cancel', this.functions.CancelJob);
    this.api.addHealthRoute(this.functions.Health);
    this.api.addDocumentRoute(this.functions.OpenApi);
    this.api.addUnroutedRoute(this.functions.Unrouted);

    this.timers.consumeWith(this.functions.FireGateTimer);
    new BackstopSweep(this, 'BackstopSweep', this.functions.SweepGateTimers);

    this.managerReportDlq = deadLetterQueue(this, 'ManagerReportDlq', 'manager reports to on-manager-report');
    new BusSubscription(this, 'ManagerReports', {
      bus: this.bus,
      eventPattern: { source: [EVENT_SOURCE], detailType: MANAGER_REPORT_TYPES },
      consumer: this.functions.OnManagerReport,
      deadLetterQueue: this.managerReportDlq,
      description: 'Manager reports from every region to on-manager-report',
    });

    this.forwardDecisionsDlq = deadLetterQueue(this, 'ForwardDecisionsDlq', 'gate decisions forwarded to the regional buses');
    this.forwardDecisionsRole = new Role(this, 'ForwardDecisionsRole', {
      assumedBy: forwardingRulesOf(this, PhysicalNames.gateBus),
      description: `EventBridge: put gate decisions on ${PhysicalNames.regionBus} in each region`,
    });
    for (const region of config.regions) {
      this.decisionForwarding[region] = new BusForwardingRule(this, `ForwardDecisionsTo-${region}`, {
        sourceBus: this.bus,
        eventPattern: { source: [EVENT_SOURCE], detailType: GATE_DECISION_TYPES, detail: { region: [region] } },
        targetBusArn: eventBusArnIn(this, region, PhysicalNames.regionBus),
        role: this.forwardDecisionsRole,
        deadLetterQueue: this.forwardDecisionsDlq,
        description: `Gate decisions for ${region} to ${PhysicalNames.regionBus} (${region})`,
      });
    }

    this.operations = new Operations(this, 'Operations', {
      dashboardName: 'Vigil-gate',
      service: GATE_SERVICE_NAME,
      functions: { ...this.functions, KeyRotation: this.cursorKeyRotation },
      throttleAlarmed: throttleAlarmedOf(gateHandlers, this.functions),
      deadLetterQueues: {
        TimerQueue: this.timers.queueDlq,
        Scheduler: this.timers.schedulerDlq,
        ManagerReports: this.managerReportDlq,
        ForwardDecisions: this.forwardDecisionsDlq,
      },
      timerQueue: this.timers.queue,
      timerConsumer: this.functions.FireGateTimer,
      stateTable,
      api: this.api,
      alarmEmail: config.alarmEmail,
    });

    new CfnOutput(this, 'GateApiUrl', { value: this.api.url, description: `Vigil gate API in ${this.region}` });
    new CfnOutput(this, 'GateEventBusName', { value: this.bus.eventBusName });
    new CfnOutput(this, 'GateTableName', { value: this.table.tableName });
    new CfnOutput(this, 'DashboardName', { value: this.operations.dashboard.dashboardName });
    new CfnOutput(this, 'AlarmTopicArn', { value: this.operations.notifications.topic.topicArn, description: 'Subscribe to hear of every alarm of the gate' });
  }

  private createFunctions(config: VigilConfig, removalPolicy: RemovalPolicy): Record<GateHandlerName, VigilFunction> {
    const gateEnvironment = {
      [LambdaEnv.gateTableName]: this.table.tableName,
      [LambdaEnv.eventBusName]: this.bus.eventBusName,
      ...this.timers.environment,
      [LambdaEnv.gateStuckThresholdSeconds]: String(config.policy.gateStuckThresholdSeconds),
      // The managers report this often: the gate waits one interval past a deadline for a lost extension report.
      [LambdaEnv.gateReportIntervalSeconds]: String(config.policy.gateReportIntervalSeconds),
      [LambdaEnv.regions]: config.regions.join(','),
      [LambdaEnv.submitFromGateFunctionName]: PhysicalNames.submitFromGateFunction,
    };
    const resources = { table: this.table, bus: this.bus, timers: this.timers, keySecret: this.cursorSecret };
    const entries = Object.entries(gateHandlers) as [GateHandlerName, (typeof gateHandlers)[GateHandlerName]][];
    const functions = {} as Record<GateHandlerName, VigilFunction>;
    for (const [name, spec] of entries) {
      const reservedConcurrency = reservedConcurrencyOf(config, 'reservedConcurrency' in spec ? spec.reservedConcurrency : undefined);
      const fn = new VigilFunction(this, name, {
        entry: spec.entry,
        description: `Vigil gate: ${spec.description}`,
        ...('timeout' in spec ? { timeout: spec.timeout } : {}),
        environment: {
          // Its metrics (and log lines) are the gate's, not those of the manager sharing its region.
          POWERTOOLS_SERVICE_NAME: GATE_SERVICE_NAME,
          ...(spec.access ? { ...gateEnvironment, ...(spec.access.keySecret ? { [LambdaEnv.cursorSecretArn]: this.cursorSecret.secretArn } : {}) } : {}),
        },
        logRemovalPolicy: removalPolicy,
        tracing: config.tracing,
        systemLogLevel: config.systemLogLevel,
        ...(reservedConcurrency !== undefined ? { reservedConcurrency } : {}),
      });
      if (spec.access) grantAccess(fn, spec.access, resources);
      functions[name] = fn;
    }
    return functions;
  }

  /** Same account, so the caller's identity policy suffices; the targets are exact ARNs, one per region. */
  private grantSubmitToRegions(regions: readonly string[]): void {
    this.functions.SubmitJob.role.addToPrincipalPolicy(
      new PolicyStatement({
        actions: ['lambda:InvokeFunction'],
        resources: regions.map((region) => functionArnIn(this, region, PhysicalNames.submitFromGateFunction)),
      }),
    );
  }
}
