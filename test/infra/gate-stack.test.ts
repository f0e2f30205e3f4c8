import { Match } from 'aws-cdk-lib/assertions';
import { beforeAll, describe, expect, it } from 'vitest';
import type { GateStack } from '../../infra/stacks/gate-stack.js';
import { LambdaEnv } from '../../shared/config/lambda-env.js';
import { synthesizeVigil, type SynthesizedVigil } from './support/vigil-app.js';
import {
  actionsOf,
  arnText,
  environmentOf,
  logicalId,
  resourceOf,
  routeAuthorizations,
  statementsOfRole,
} from './support/template-queries.js';

let vigil: SynthesizedVigil;
let gate: GateStack;

beforeAll(() => {
  vigil = synthesizeVigil();
  gate = vigil.gate;
});

const template = () => vigil.template(gate);
const REGIONS = ['us-east-1', 'eu-west-1', 'ap-southeast-2'];

describe('gate stack', () => {
  it('is deployed in gateRegion after every regional stack', () => {
    expect(gate.stackName).toBe('Vigil-gate');
    expect(gate.region).toBe('us-east-1');
    expect(gate.dependencies.map((stack) => stack.stackName).sort()).toEqual(REGIONS.map((region) => `Vigil-${region}`).sort());
  });

  it('serves POST /jobs, GET /jobs, GET /jobs/{jobId}, its history, POST /jobs/{jobId}/cancel with IAM auth, and an open /health', () => {
    expect(routeAuthorizations(template())).toEqual({
      'POST /jobs': 'AWS_IAM',
      'GET /jobs': 'AWS_IAM',
      'GET /jobs/{jobId}': 'AWS_IAM',
      'GET /jobs/{jobId}/history': 'AWS_IAM',
      'POST /jobs/{jobId}/cancel': 'AWS_IAM',
      'GET /health': 'NONE',
      'GET /openapi.json': 'NONE',
      'HEAD /jobs': 'AWS_IAM',
      'HEAD /jobs/{jobId}': 'AWS_IAM',
      'HEAD /jobs/{jobId}/history': 'AWS_IAM',
      'HEAD /health': 'NONE',
      'HEAD /openapi.json': 'NONE',
      $default: 'NONE',
    });
    template().hasOutput('GateApiUrl', Match.anyValue());
    expect(resourceOf(template(), gate.api.stage).Properties?.['AccessLogSettings']).toBeDefined();
  });

  it('its table has the regional table’s settings and the timers index, and no worker index', () => {
    const table = resourceOf(template(), gate.table);
    expect(table.DeletionPolicy).toBe('Retain');
    expect(table.Properties).toMatchObject({
      BillingMode: 'PAY_PER_REQUEST',
      SSESpecification: { SSEEnabled: true },
      PointInTimeRecoverySpecification: { PointInTimeRecoveryEnabled: true },
      TimeToLiveSpecification: { AttributeName: 'expiresAt', Enabled: true },
      DeletionProtectionEnabled: true,
    });
    expect((table.Properties?.['GlobalSecondaryIndexes'] as { IndexName: string }[]).map((index) => index.IndexName)).toEqual(['timers']);
  });

  it("the gate's page-cursor key is its one secret, generated at deploy time", () => {
    template().resourceCountIs('AWS::SecretsManager::Secret', 1);
    template().hasResourceProperties('AWS::SecretsManager::Secret', { GenerateSecretString: { PasswordLength: 64, ExcludePunctuation: true } });
  });

  it('every gate handler runs nodejs22.x on arm64 with tracing and gets the gate wiring’s variables', () => {
    const gateEnvironment = [
      LambdaEnv.gateTableName,
      LambdaEnv.eventBusName,
      LambdaEnv.timerQueueUrl,
      LambdaEnv.timerQueueArn,
      LambdaEnv.scheduleGroupName,
      LambdaEnv.schedulerRoleArn,
      LambdaEnv.schedulerDlqArn,
      LambdaEnv.gateStuckThresholdSeconds,
      LambdaEnv.gateReportIntervalSeconds,
      LambdaEnv.regions,
      LambdaEnv.submitFromGateFunctionName,
    ];
    const common = ['NODE_OPTIONS', 'POWERTOOLS_SERVICE_NAME', 'POWERTOOLS_METRICS_NAMESPACE'];
    for (const [name, fn] of Object.entries(gate.functions)) {
      expect(resourceOf(template(), fn.handler).Properties, name).toMatchObject({
        Runtime: 'nodejs22.x',
        Architectures: ['arm64'],
      });
      expect(resourceOf(template(), fn.handler).Properties?.['TracingConfig'], name).toBeUndefined();
      // The jobs list seals its page cursors under the gate's own key.
      const expected = name === 'Health' || name === 'OpenApi' || name === 'Unrouted' ? common : [...common, ...gateEnvironment, ...(name === 'ListJobs' ? [LambdaEnv.cursorSecretArn] : [])];
      expect(Object.keys(environmentOf(template(), fn)).sort(), name).toEqual(expected.sort());
    }
    expect(environmentOf(template(), gate.functions.SubmitJob)).toMatchObject({
      [LambdaEnv.regions]: 'us-east-1,eu-west-1,ap-southeast-2',
      [LambdaEnv.submitFromGateFunctionName]: 'vigil-submit-from-gate',
      [LambdaEnv.gateStuckThresholdSeconds]: '180',
      [LambdaEnv.gateReportIntervalSeconds]: '10',
      [LambdaEnv.scheduleGroupName]: 'vigil-gate-timers',
    });
  });

  it('gate-submit may invoke exactly vigil-submit-from-gate in each region, and nothing else may', () => {
    const invokes = Object.entries(gate.functions).flatMap(([name, fn]) =>
      statementsOfRole(template(), logicalId(fn.role))
        .filter((statement) => actionsOf(statement).includes('lambda:InvokeFunction'))
        .map((statement) => [name, (statement.Resource as unknown[]).map(arnText)]),
    );
    expect(invokes).toEqual([
      ['SubmitJob', REGIONS.map((region) => `arn:<AWS::Partition>:lambda:${region}:<AWS::AccountId>:function:vigil-submit-from-gate`)],
    ]);
  });

  it('manager reports arriving on vigil-gate-bus reach on-manager-report, with a DLQ on both hops', () => {
    template().hasResourceProperties('AWS::Events::EventBus', { Name: 'vigil-gate-bus' });
    const dlqArn = { 'Fn::GetAtt': [logicalId(gate.managerReportDlq), 'Arn'] };
    template().hasResourceProperties('AWS::Events::Rule', {
      EventBusName: { Ref: logicalId(gate.bus) },
      EventPattern: {
        source: ['vigil'],
        'detail-type': ['JobProgressReport', 'JobTimeoutReport', 'JobLeaderTransfer', 'JobFinalStatus'],
      },
      Targets: [
        Match.objectLike({
          Arn: { 'Fn::GetAtt': [logicalId(gate.functions.OnManagerReport.handler), 'Arn'] },
          DeadLetterConfig: { Arn: dlqArn },
        }),
      ],
    });
    template().hasResourceProperties('AWS::Lambda::EventInvokeConfig', {
      FunctionName: { Ref: logicalId(gate.functions.OnManagerReport.handler) },
      DestinationConfig: { OnFailure: { Destination: dlqArn } },
    });
  });

  it.each(REGIONS)('forwards JobGlobalTimeout/JobGlobalCancel addressed to %s to vigil-bus in %s', (region) => {
    const forwarding = gate.decisionForwarding[region];
    if (!forwarding) throw new Error(`no forwarding rule for ${region}`);
    const rule = resourceOf(template(), forwarding.rule);
    expect(rule.Properties?.['EventPattern']).toEqual({
      source: ['vigil'],
      'detail-type': ['JobGlobalTimeout', 'JobGlobalCancel'],
      detail: { region: [region] },
    });
    const [target] = rule.Properties?.['Targets'] as [{ Arn: unknown; RoleArn: unknown; DeadLetterConfig: { Arn: unknown } }];
    expect(arnText(target.Arn)).toBe(`arn:<AWS::Partition>:events:${region}:<AWS::AccountId>:event-bus/vigil-bus`);
    expect(target.RoleArn).toEqual({ 'Fn::GetAtt': [logicalId(gate.forwardDecisionsRole), 'Arn'] });
    expect(target.DeadLetterConfig.Arn).toEqual({ 'Fn::GetAtt': [logicalId(gate.forwardDecisionsDlq), 'Arn'] });
  });

  it('the forwarding role may put events on the regional buses only', () => {
    const statements = statementsOfRole(template(), logicalId(gate.forwardDecisionsRole));
    expect(statements.map((s) => [s.Action, arnText(s.Resource)])).toEqual(
      REGIONS.map((region) => ['events:PutEvents', `arn:<AWS::Partition>:events:${region}:<AWS::AccountId>:event-bus/vigil-bus`]),
    );
  });

  it('has its own timer queue, schedule group, sweep, alarms and dashboard', () => {
    template().hasResourceProperties('AWS::Scheduler::ScheduleGroup', { Name: 'vigil-gate-timers' });
    template().hasResourceProperties('AWS::Lambda::EventSourceMapping', {
      FunctionName: { Ref: logicalId(gate.functions.FireGateTimer.handler) },
      FunctionResponseTypes: ['ReportBatchItemFailures'],
    });
    template().hasResourceProperties('AWS::Events::Rule', {
      ScheduleExpression: 'rate(1 minute)',
      Targets: [Match.objectLike({ Arn: { 'Fn::GetAtt': [logicalId(gate.functions.SweepGateTimers.handler), 'Arn'] } })],
    });
    const dlqCount = 4;
    // … the events the bus will never carry (refused, dropped: alarm-notifications.test.ts), a sweep left behind (SweepDueLeft)
    // or behind the bound (SweptWakeUpPastBound), the throttles of the timer consumer, the sweep and the manager reports'
    // consumer, late wake-ups and the table's throttles; the cursor key's rotation failing.
    template().resourceCountIs('AWS::CloudWatch::Alarm', dlqCount + Object.keys(gate.functions).length + 1 + 4 + 3 + 2);
    template().hasResourceProperties('AWS::CloudWatch::Alarm', {
      MetricName: 'Errors',
      Dimensions: [{ Name: 'FunctionName', Value: { Ref: logicalId(gate.cursorKeyRotation.handler) } }],
      Threshold: 1,
    });
    template().hasResourceProperties('AWS::CloudWatch::Dashboard', { DashboardName: 'Vigil-gate' });
  });
});
