import { poolAgentRoutes, poolClientRoutes } from '../../functions/pools/routes.js';
import { ABANDONED_AFTER_MS } from '../../shared/app/pools/claim-item.js';
import { GATE_SUBMIT_WAIT_MS } from '../../shared/adapters/aws/lambda-region-managers.js';
import { gateHandlers } from '../../infra/stacks/gate-handlers.js';
import { Match } from 'aws-cdk-lib/assertions';
import { beforeAll, describe, expect, it } from 'vitest';
import type { RegionalStack } from '../../infra/stacks/regional-stack.js';
import { LambdaEnv } from '../../shared/config/lambda-env.js';
import { synthesizeVigil, type SynthesizedVigil } from './support/vigil-app.js';
import {
  actionsOf,
  arnText,
  environmentOf,
  logicalId,
  resourceOf,
  resourcesOfType,
  routeAuthorizations,
  statementsOfRole,
} from './support/template-queries.js';

let vigil: SynthesizedVigil;
let usEast1: RegionalStack;
let euWest1: RegionalStack;

beforeAll(() => {
  vigil = synthesizeVigil();
  [usEast1, euWest1] = vigil.regional as [RegionalStack, RegionalStack];
});

const template = () => vigil.template(usEast1);

describe('regional stack: state', () => {
  it('one stack per region from cdk.json, each pinned to its region', () => {
    expect(vigil.regional.map((stack) => [stack.stackName, stack.region])).toEqual([
      ['Vigil-us-east-1', 'us-east-1'],
      ['Vigil-eu-west-1', 'eu-west-1'],
      ['Vigil-ap-southeast-2', 'ap-southeast-2'],
    ]);
  });

  it('the jobs table is on-demand, encrypted, point-in-time recoverable, expiring, protected and retained', () => {
    const table = resourceOf(template(), usEast1.table);
    expect(table.DeletionPolicy).toBe('Retain');
    expect(table.Properties).toMatchObject({
      BillingMode: 'PAY_PER_REQUEST',
      SSESpecification: { SSEEnabled: true },
      PointInTimeRecoverySpecification: { PointInTimeRecoveryEnabled: true },
      TimeToLiveSpecification: { AttributeName: 'expiresAt', Enabled: true },
      DeletionProtectionEnabled: true,
      KeySchema: [
        { AttributeName: 'pk', KeyType: 'HASH' },
        { AttributeName: 'sk', KeyType: 'RANGE' },
      ],
    });
  });

  it('has the sparse timers index, the byWorker index, the sparse available index (pool claims) and the poolItems index (pool counts) the store queries', () => {
    expect(resourceOf(template(), usEast1.table).Properties?.['GlobalSecondaryIndexes']).toEqual([
      {
        IndexName: 'timers',
        KeySchema: [
          { AttributeName: 'timerShard', KeyType: 'HASH' },
          { AttributeName: 'timerDueAt', KeyType: 'RANGE' },
        ],
        Projection: { ProjectionType: 'INCLUDE', NonKeyAttributes: ['jobId', 'timerFenceToken'] },
      },
      {
        IndexName: 'byWorker',
        KeySchema: [
          { AttributeName: 'gsiWorkerId', KeyType: 'HASH' },
          { AttributeName: 'pk', KeyType: 'RANGE' },
        ],
        Projection: { ProjectionType: 'INCLUDE', NonKeyAttributes: ['index'] },
      },
      {
        IndexName: 'available',
        KeySchema: [
          { AttributeName: 'availablePool', KeyType: 'HASH' },
          { AttributeName: 'availableKey', KeyType: 'RANGE' },
        ],
        Projection: { ProjectionType: 'KEYS_ONLY' },
      },
      {
        IndexName: 'poolItems',
        KeySchema: [
          { AttributeName: 'poolId', KeyType: 'HASH' },
          { AttributeName: 'sk', KeyType: 'RANGE' },
        ],
        Projection: { ProjectionType: 'INCLUDE', NonKeyAttributes: ['state', 'splitPending', 'stats'] },
      },
    ]);
  });

  it('deletionProtection=false turns protection off and lets the table go with the stack', () => {
    const unprotected = synthesizeVigil({ context: { regions: 'eu-west-1', gateRegion: 'eu-west-1', deletionProtection: 'false' } });
    const [stack] = unprotected.regional as [RegionalStack];
    const table = resourceOf(unprotected.template(stack), stack.table);
    expect(table.DeletionPolicy).toBe('Delete');
    expect(table.Properties?.['DeletionProtectionEnabled']).toBe(false);
  });

  it('the workflow token HMAC key is a generated secret', () => {
    template().hasResourceProperties('AWS::SecretsManager::Secret', {
      GenerateSecretString: { PasswordLength: 64, ExcludePunctuation: true },
    });
  });
});

describe('regional stack: HTTP API', () => {
  it('client routes need SigV4 (IAM); worker routes and /health carry no API-level authorizer', () => {
    expect(routeAuthorizations(template())).toEqual({
      'POST /jobs': 'AWS_IAM',
      'GET /jobs': 'AWS_IAM',
      'GET /jobs/{jobId}': 'AWS_IAM',
      'GET /jobs/{jobId}/tokens': 'AWS_IAM',
      'GET /jobs/{jobId}/history': 'AWS_IAM',
      'POST /jobs/{jobId}/cancel': 'AWS_IAM',
      'POST /jobs/{jobId}/takeover': 'AWS_IAM',
      'POST /workers/{workerId}/failure': 'AWS_IAM',
      'POST /jobs/{jobId}/workflows/{workflowId}/progress': 'NONE',
      'POST /jobs/{jobId}/workflows/{workflowId}/complete': 'NONE',
      'POST /workers/{workerId}/extensions': 'NONE',
      'GET /health': 'NONE',
      'GET /openapi.json': 'NONE',
      ...Object.fromEntries(poolClientRoutes.map((route) => [`${route.method} ${route.path}`, 'AWS_IAM'])),
      ...Object.fromEntries(poolAgentRoutes.map((route) => [`${route.method} ${route.path}`, 'NONE'])),
      // A HEAD route beside each GET route, and the $default route (test/infra/unrouted-requests.test.ts).
      'HEAD /jobs': 'AWS_IAM',
      'HEAD /jobs/{jobId}': 'AWS_IAM',
      'HEAD /jobs/{jobId}/tokens': 'AWS_IAM',
      'HEAD /jobs/{jobId}/history': 'AWS_IAM',
      'HEAD /health': 'NONE',
      'HEAD /openapi.json': 'NONE',
      ...Object.fromEntries(poolClientRoutes.filter((route) => route.method === 'GET').map((route) => [`HEAD ${route.path}`, 'AWS_IAM'])),
      $default: 'NONE',
    });
  });

  it('serves every pool route: client routes by the client function, agent routes by the agent function', () => {
    const integrations = resourcesOfType(template(), 'AWS::ApiGatewayV2::Integration');
    const routes = Object.values(resourcesOfType(template(), 'AWS::ApiGatewayV2::Route'));
    const functionOfRoute = (routeKey: string) => {
      const route = routes.find((r) => r.Properties?.['RouteKey'] === routeKey);
      const target = JSON.stringify(route?.Properties?.['Target']);
      const integrationId = Object.keys(integrations).find((id) => target.includes(id));
      return JSON.stringify(integrationId ? integrations[integrationId]?.Properties?.['IntegrationUri'] : undefined);
    };
    expect(poolClientRoutes).toHaveLength(12);
    expect(poolAgentRoutes).toHaveLength(6);
    for (const route of poolClientRoutes) expect(functionOfRoute(`${route.method} ${route.path}`)).toContain(logicalId(usEast1.functions.PoolClientApi.handler));
    for (const route of poolAgentRoutes) expect(functionOfRoute(`${route.method} ${route.path}`)).toContain(logicalId(usEast1.functions.PoolAgentApi.handler));
  });

  it('the $default stage writes JSON access logs to a log group with retention', () => {
    const stage = resourceOf(template(), usEast1.api.stage);
    expect(stage.Properties).toMatchObject({ StageName: '$default', AutoDeploy: true });
    const settings = stage.Properties?.['AccessLogSettings'] as { DestinationArn: unknown; Format: string };
    expect(settings.DestinationArn).toEqual({ 'Fn::GetAtt': [logicalId(usEast1.api.accessLogs), 'Arn'] });
    expect(JSON.parse(settings.Format)).toMatchObject({ requestId: '$context.requestId', caller: '$context.identity.userArn' });
    expect(resourceOf(template(), usEast1.api.accessLogs).Properties?.['RetentionInDays']).toBe(30);
  });

  it('exports the API URL', () => {
    template().hasOutput('ApiUrl', Match.anyValue());
  });
});

describe('regional stack: Lambda handlers', () => {
  it('every handler runs nodejs22.x on arm64 without X-Ray (context tracing) and with its own log group with retention', () => {
    for (const fn of Object.values(usEast1.functions)) {
      const props = resourceOf(template(), fn.handler).Properties;
      expect(props).toMatchObject({
        Runtime: 'nodejs22.x',
        Architectures: ['arm64'],
        LoggingConfig: { LogGroup: { Ref: logicalId(fn.logGroup) } },
        Handler: 'index.handler',
      });
      expect(props?.['TracingConfig']).toBeUndefined();
      expect(resourceOf(template(), fn.logGroup).Properties?.['RetentionInDays']).toBe(30);
    }
  });

  it('a claim ends (Lambda timeout) before its receipt counts as abandoned, so no repeat retakes a reservation whose call may still take an item', () => {
    const timeoutSeconds = resourceOf(template(), usEast1.functions.PoolClientApi.handler).Properties?.['Timeout'];
    expect(typeof timeoutSeconds).toBe('number');
    expect((timeoutSeconds as number) * 1_000).toBeLessThan(ABANDONED_AFTER_MS);
  });

  it("the gate's submit outlives its wait on each region's submit-from-gate, which outlives that function: a slow region is answered as unreachable, never cuts the gate off", () => {
    const regionSeconds = resourceOf(template(), usEast1.functions.SubmitFromGate.handler).Properties?.['Timeout'] as number;
    const gateSeconds = gateHandlers.SubmitJob.timeout.toSeconds();
    expect(regionSeconds * 1_000).toBeLessThan(GATE_SUBMIT_WAIT_MS);
    expect(GATE_SUBMIT_WAIT_MS).toBeLessThan(gateSeconds * 1_000 - 3_000);
  });

  it('the gate calls submit-from-gate by its fixed name', () => {
    expect(resourceOf(template(), usEast1.functions.SubmitFromGate.handler).Properties?.['FunctionName']).toBe('vigil-submit-from-gate');
  });

  it('each handler gets exactly the variables its wiring reads, named by LambdaEnv', () => {
    const common = ['NODE_OPTIONS', 'POWERTOOLS_SERVICE_NAME', 'POWERTOOLS_METRICS_NAMESPACE'];
    const manager = [
      LambdaEnv.jobsTableName,
      LambdaEnv.eventBusName,
      LambdaEnv.timerQueueUrl,
      LambdaEnv.timerQueueArn,
      LambdaEnv.scheduleGroupName,
      LambdaEnv.schedulerRoleArn,
      LambdaEnv.schedulerDlqArn,
      LambdaEnv.defaultStuckThresholdSeconds,
      LambdaEnv.gateFallbackSeconds,
      LambdaEnv.gateReportIntervalSeconds,
    ];
    const withTokens = [...manager, LambdaEnv.tokenSecretArn];
    const expected: Record<keyof typeof usEast1.functions, string[]> = {
      SubmitJob: withTokens,
      GetJob: manager,
      GetJobTokens: withTokens,
      GetJobHistory: manager,
      // Its page cursors are sealed under a key derived from the token secret.
      ListJobs: withTokens,
      ReportProgress: withTokens,
      CompleteWorkflow: withTokens,
      RequestExtension: withTokens,
      CancelJob: manager,
      TakeOverJob: manager,
      ReportWorkerFailure: manager,
      Health: [],
      OpenApi: [],
      Unrouted: [],
      SubmitFromGate: withTokens,
      FireJobTimer: manager,
      SweepJobTimers: manager,
      OnGateDecision: manager,
      PoolClientApi: withTokens,
      PoolAgentApi: withTokens,
    };
    for (const [name, fn] of Object.entries(usEast1.functions)) {
      const names = Object.keys(environmentOf(template(), fn));
      expect(names.sort(), name).toEqual([...common, ...expected[name as keyof typeof expected]].sort());
    }
  });

  it('variables carry this stack’s resources and the policy defaults', () => {
    expect(environmentOf(template(), usEast1.functions.FireJobTimer)).toMatchObject({
      NODE_OPTIONS: '--enable-source-maps',
      POWERTOOLS_SERVICE_NAME: 'vigil',
      POWERTOOLS_METRICS_NAMESPACE: 'Vigil',
      [LambdaEnv.jobsTableName]: { Ref: logicalId(usEast1.table) },
      [LambdaEnv.eventBusName]: { Ref: logicalId(usEast1.bus) },
      [LambdaEnv.timerQueueUrl]: { Ref: logicalId(usEast1.timers.queue) },
      [LambdaEnv.scheduleGroupName]: 'vigil-timers',
      [LambdaEnv.schedulerRoleArn]: { 'Fn::GetAtt': [logicalId(usEast1.timers.schedulerRole), 'Arn'] },
      [LambdaEnv.schedulerDlqArn]: { 'Fn::GetAtt': [logicalId(usEast1.timers.schedulerDlq), 'Arn'] },
      [LambdaEnv.defaultStuckThresholdSeconds]: '120',
      [LambdaEnv.gateFallbackSeconds]: '300',
      [LambdaEnv.gateReportIntervalSeconds]: '10',
    });
  });

  it('each handler is granted only what it does', () => {
    const capabilitiesOf = (name: keyof typeof usEast1.functions) => {
      const actions = statementsOfRole(template(), logicalId(usEast1.functions[name].role)).flatMap(actionsOf);
      return {
        readTable: actions.includes('dynamodb:GetItem'),
        writeTable: actions.includes('dynamodb:PutItem'),
        publish: actions.includes('events:PutEvents'),
        armTimers: ['sqs:SendMessage', 'scheduler:CreateSchedule', 'scheduler:DeleteSchedule', 'iam:PassRole'].every((a) => actions.includes(a)),
        tokenSecret: actions.includes('secretsmanager:GetSecretValue'),
      };
    };
    const none = { readTable: false, writeTable: false, publish: false, armTimers: false, tokenSecret: false };
    const decider = { readTable: true, writeTable: true, publish: true, armTimers: true, tokenSecret: false };
    expect(capabilitiesOf('Health')).toEqual(none);
    expect(capabilitiesOf('OpenApi')).toEqual(none);
    expect(capabilitiesOf('Unrouted')).toEqual(none);
    expect(capabilitiesOf('GetJob')).toEqual({ ...none, readTable: true });
    expect(capabilitiesOf('GetJobTokens')).toEqual({ ...none, readTable: true, tokenSecret: true });
    expect(capabilitiesOf('GetJobHistory')).toEqual({ ...none, readTable: true });
    expect(capabilitiesOf('ListJobs')).toEqual({ ...none, readTable: true, tokenSecret: true });
    for (const name of ['SubmitJob', 'ReportProgress', 'CompleteWorkflow', 'RequestExtension', 'SubmitFromGate', 'PoolClientApi', 'PoolAgentApi'] as const) {
      expect(capabilitiesOf(name), name).toEqual({ ...decider, tokenSecret: true });
    }
    for (const name of ['CancelJob', 'TakeOverJob', 'ReportWorkerFailure', 'FireJobTimer', 'SweepJobTimers', 'OnGateDecision'] as const) {
      expect(capabilitiesOf(name), name).toEqual(decider);
    }
  });
});

describe('regional stack: timers', () => {
  it('the timer queue is encrypted, TLS-only, and dead-letters after 5 receives', () => {
    expect(resourceOf(template(), usEast1.timers.queue).Properties).toMatchObject({
      SqsManagedSseEnabled: true,
      VisibilityTimeout: 180,
      RedrivePolicy: { deadLetterTargetArn: { 'Fn::GetAtt': [logicalId(usEast1.timers.queueDlq), 'Arn'] }, maxReceiveCount: 5 },
    });
    template().hasResourceProperties('AWS::SQS::QueuePolicy', {
      Queues: [{ Ref: logicalId(usEast1.timers.queue) }],
      PolicyDocument: {
        Statement: Match.arrayWith([
          Match.objectLike({ Effect: 'Deny', Action: 'sqs:*', Condition: { Bool: { 'aws:SecureTransport': 'false' } } }),
        ]),
      },
    });
  });

  it('every queue in the stack is encrypted and TLS-only', () => {
    const queues = resourcesOfType(template(), 'AWS::SQS::Queue');
    const tlsOnly = Object.values(resourcesOfType(template(), 'AWS::SQS::QueuePolicy')).filter((policy) =>
      JSON.stringify(policy.Properties).includes('"aws:SecureTransport":"false"'),
    );
    for (const queue of Object.values(queues)) expect(queue.Properties?.['SqsManagedSseEnabled']).toBe(true);
    expect(tlsOnly.map((policy) => JSON.stringify(policy.Properties?.['Queues'])).sort()).toEqual(
      Object.keys(queues).map((id) => JSON.stringify([{ Ref: id }])).sort(),
    );
  });

  it('fire-job-timer consumes the queue with partial batch responses', () => {
    template().hasResourceProperties('AWS::Lambda::EventSourceMapping', {
      EventSourceArn: { 'Fn::GetAtt': [logicalId(usEast1.timers.queue), 'Arn'] },
      FunctionName: { Ref: logicalId(usEast1.functions.FireJobTimer.handler) },
      FunctionResponseTypes: ['ReportBatchItemFailures'],
    });
  });

  it('the Scheduler role may only be assumed for this account’s group and may only send to the timer queue and its DLQ', () => {
    const role = resourceOf(template(), usEast1.timers.schedulerRole);
    expect(role.Properties?.['AssumeRolePolicyDocument']).toEqual({
      Version: '2012-10-17',
      Statement: [
        {
          Effect: 'Allow',
          Action: 'sts:AssumeRole',
          Principal: { Service: 'scheduler.amazonaws.com' },
          Condition: {
            StringEquals: {
              'aws:SourceAccount': { Ref: 'AWS::AccountId' },
              'aws:SourceArn': { 'Fn::GetAtt': [logicalId(usEast1.timers.scheduleGroup), 'Arn'] },
            },
          },
        },
      ],
    });
    expect(statementsOfRole(template(), logicalId(usEast1.timers.schedulerRole))).toEqual([
      { Effect: 'Allow', Action: 'sqs:SendMessage', Resource: { 'Fn::GetAtt': [logicalId(usEast1.timers.queue), 'Arn'] } },
      { Effect: 'Allow', Action: 'sqs:SendMessage', Resource: { 'Fn::GetAtt': [logicalId(usEast1.timers.schedulerDlq), 'Arn'] } },
    ]);
  });

  it('the schedule group has the fixed name the adapter uses', () => {
    template().hasResourceProperties('AWS::Scheduler::ScheduleGroup', { Name: 'vigil-timers' });
  });

  it('the backstop sweep runs every minute and is not retried (the next run covers it)', () => {
    template().hasResourceProperties('AWS::Events::Rule', {
      ScheduleExpression: 'rate(1 minute)',
      Targets: [Match.objectLike({ Arn: { 'Fn::GetAtt': [logicalId(usEast1.functions.SweepJobTimers.handler), 'Arn'] } })],
    });
    template().hasResourceProperties('AWS::Lambda::EventInvokeConfig', {
      FunctionName: { Ref: logicalId(usEast1.functions.SweepJobTimers.handler) },
      MaximumRetryAttempts: 0,
    });
  });
});

describe('regional stack: events', () => {
  it('the bus has the fixed name the gate forwards to', () => {
    template().hasResourceProperties('AWS::Events::EventBus', { Name: 'vigil-bus' });
  });

  it('gate decisions addressed to this region reach on-gate-decision, with retries and a DLQ on both hops', () => {
    const dlqArn = { 'Fn::GetAtt': [logicalId(usEast1.gateDecisionDlq), 'Arn'] };
    template().hasResourceProperties('AWS::Events::Rule', {
      EventBusName: { Ref: logicalId(usEast1.bus) },
      EventPattern: { source: ['vigil'], 'detail-type': ['JobGlobalTimeout', 'JobGlobalCancel'], detail: { region: ['us-east-1'] } },
      Targets: [
        Match.objectLike({
          Arn: { 'Fn::GetAtt': [logicalId(usEast1.functions.OnGateDecision.handler), 'Arn'] },
          DeadLetterConfig: { Arn: dlqArn },
          RetryPolicy: { MaximumRetryAttempts: 185, MaximumEventAgeInSeconds: 86400 },
        }),
      ],
    });
    template().hasResourceProperties('AWS::Lambda::EventInvokeConfig', {
      FunctionName: { Ref: logicalId(usEast1.functions.OnGateDecision.handler) },
      DestinationConfig: { OnFailure: { Destination: dlqArn } },
    });
  });

  it.each([
    ['us-east-1', () => usEast1],
    ['eu-west-1', () => euWest1],
  ])('%s forwards gate-coordinated manager reports to vigil-gate-bus in us-east-1', (_region, stackOf) => {
    const stack = stackOf();
    const rules = Object.values(resourcesOfType(vigil.template(stack), 'AWS::Events::Rule')).filter(
      (rule) => rule.Properties?.['Description'] === 'Manager reports to vigil-gate-bus (us-east-1)',
    );
    expect(rules).toHaveLength(1);
    const [rule] = rules as [(typeof rules)[number]];
    expect(rule.Properties?.['EventPattern']).toEqual({
      source: ['vigil'],
      'detail-type': ['JobProgressReport', 'JobTimeoutReport', 'JobLeaderTransfer', 'JobFinalStatus'],
      detail: { gateRegion: ['us-east-1'] },
    });
    const [target] = rule.Properties?.['Targets'] as [{ Arn: unknown; RoleArn: unknown; DeadLetterConfig: { Arn: unknown } }];
    expect(arnText(target.Arn)).toBe('arn:<AWS::Partition>:events:us-east-1:<AWS::AccountId>:event-bus/vigil-gate-bus');
    expect(target.DeadLetterConfig.Arn).toEqual({ 'Fn::GetAtt': [logicalId(stack.forwardToGateDlq), 'Arn'] });
    const roleId = (target.RoleArn as { 'Fn::GetAtt': [string, string] })['Fn::GetAtt'][0];
    expect(statementsOfRole(vigil.template(stack), roleId).map((s) => [s.Action, arnText(s.Resource)])).toEqual([
      ['events:PutEvents', 'arn:<AWS::Partition>:events:us-east-1:<AWS::AccountId>:event-bus/vigil-gate-bus'],
    ]);
  });
});

describe('regional stack: operations', () => {
  it('alarms on the depth of every dead-letter queue and on every handler’s errors', () => {
    const alarms = Object.values(resourcesOfType(template(), 'AWS::CloudWatch::Alarm')).map((alarm) => alarm.Properties ?? {});
    const dlqs = [usEast1.timers.queueDlq, usEast1.timers.schedulerDlq, usEast1.gateDecisionDlq, usEast1.forwardToGateDlq];
    for (const dlq of dlqs) {
      expect(alarms).toContainEqual(
        expect.objectContaining({
          MetricName: 'ApproximateNumberOfMessagesVisible',
          Dimensions: [{ Name: 'QueueName', Value: { 'Fn::GetAtt': [logicalId(dlq), 'QueueName'] } }],
          Threshold: 1,
        }),
      );
    }
    // The key rotation's errors too: a rotation that keeps failing leaves one key signing for good.
    for (const fn of [...Object.values(usEast1.functions), usEast1.tokenKeyRotation]) {
      expect(alarms).toContainEqual(
        expect.objectContaining({
          MetricName: 'Errors',
          Dimensions: [{ Name: 'FunctionName', Value: { Ref: logicalId(fn.handler) } }],
          Threshold: 1,
        }),
      );
    }
    // … the events the bus will never carry (refused, dropped: alarm-notifications.test.ts), a sweep that
    // spent its budget with wake-ups left (SweepDueLeft) or fired one past the bound (SweptWakeUpPastBound), the
    // throttles of the timer consumer, the sweep and the gate decisions' consumer, late wake-ups, the table's throttles
    // (alarm-notifications.test.ts) and the agent timeout rate (below).
    expect(alarms).toHaveLength(dlqs.length + Object.keys(usEast1.functions).length + 1 + 4 + 3 + 2 + 1);
  });

  it('has a dashboard named after the region', () => {
    template().hasResourceProperties('AWS::CloudWatch::Dashboard', { DashboardName: 'Vigil-us-east-1' });
  });
});

describe('regional stack: agent fleets', () => {
  it('alarms on the agent timeout rate (AgentTimedOut ÷ AgentStarted) and graphs the fleet metrics', () => {
    const alarm = resourceOf(template(), usEast1.agentFleetOperations.timeoutRateAlarm);
    const metrics = alarm.Properties?.['Metrics'] as Array<{ Id: string; Expression?: string; MetricStat?: { Metric: { MetricName: string; Namespace: string } } }>;
    expect(metrics.find((m) => m.Expression)?.Expression).toBe('IF(started > 0, 100 * timedOut / started, 0)');
    expect(metrics.flatMap((m) => (m.MetricStat ? [m.MetricStat.Metric.MetricName] : [])).sort()).toEqual(['AgentStarted', 'AgentTimedOut']);
    expect(alarm.Properties).toMatchObject({ Threshold: 20, ComparisonOperator: 'GreaterThanThreshold' });
    const dashboard = JSON.stringify(resourceOf(template(), usEast1.operations.dashboard).Properties?.['DashboardBody']);
    for (const title of ['Agents', 'Agent timeout rate %', 'Checkpoints, DLQ, escalations']) expect(dashboard).toContain(title);
  });
});
