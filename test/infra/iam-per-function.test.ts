import type { Template } from 'aws-cdk-lib/assertions';
import { beforeAll, describe, expect, it } from 'vitest';
import type { VigilFunction } from '../../infra/constructs/vigil-function.js';
import { functionsOf, synthesizeVigil, type SynthesizedVigil } from './support/vigil-app.js';
import { actionsOf, arnText, logicalId, resourcesOf, statementsOfRole } from './support/template-queries.js';

// The exact IAM of every function of both stacks, as
// sorted "action resource" grants, instead of presence checks. A new grant shows up here in review.

/** Every Allow of the function's role as sorted, unique `action resource` lines; logical-id hashes dropped. */
function grantsOf(template: Template, fn: VigilFunction): string[] {
  const lines = statementsOfRole(template, logicalId(fn.role))
    .filter((statement) => statement.Effect === 'Allow')
    .flatMap((statement) => actionsOf(statement).flatMap((action) => resourcesOf(statement).map((resource) => `${action} ${arnText(resource)}`)));
  return [...new Set(lines.map((line) => line.replace(/([A-Za-z]+)[0-9A-F]{8}(?=[.>])/g, '$1')))].sort();
}

const grants = (actions: readonly string[], resources: readonly string[]) => actions.flatMap((a) => resources.map((r) => `${a} ${r}`));

const base = (fn: string) => grants(['logs:CreateLogStream', 'logs:PutLogEvents'], [`<${fn}Logs.Arn>`]);
const XRAY = grants(['xray:PutTelemetryRecords', 'xray:PutTraceSegments'], ['*']);
const READ = ['dynamodb:BatchGetItem', 'dynamodb:GetItem', 'dynamodb:Query'];
const WRITE = ['dynamodb:BatchWriteItem', 'dynamodb:PutItem', 'dynamodb:UpdateItem'];
const tableRead = (table: string) => grants(READ, [`<${table}.Arn>`, `<${table}.Arn>/index/*`]);
const tableReadWrite = (table: string) => grants([...READ, ...WRITE], [`<${table}.Arn>`, `<${table}.Arn>/index/*`]);
const publish = grants(['events:PutEvents'], ['<Bus.Arn>']);
const sendTo = (queue: string) => grants(['sqs:SendMessage'], [`<${queue}.Arn>`]);
const consume = grants(['sqs:ChangeMessageVisibility', 'sqs:DeleteMessage', 'sqs:GetQueueAttributes', 'sqs:GetQueueUrl', 'sqs:ReceiveMessage'], ['<TimersQueue.Arn>']);
const armTimers = (region: string, group: string) => [
  ...sendTo('TimersQueue'),
  ...grants(['scheduler:CreateSchedule', 'scheduler:DeleteSchedule', 'scheduler:UpdateSchedule'], [
    `arn:<AWS::Partition>:scheduler:${region}:<AWS::AccountId>:schedule/${group}/*`,
  ]),
  ...grants(['iam:PassRole'], ['<TimersSchedulerRole.Arn>']),
];
const tokenSecret = grants(['secretsmanager:GetSecretValue'], ['<WorkflowTokenKeySecret>']);

const sorted = (lines: readonly string[]) => [...new Set(lines)].sort();

let vigil: SynthesizedVigil;
let traced: SynthesizedVigil;
beforeAll(() => {
  vigil = synthesizeVigil({ context: { workerFunctionUrl: 'true' } });
  traced = synthesizeVigil({ context: { tracing: 'true', workerFunctionUrl: 'true' } });
});

describe('exact IAM of every regional function (us-east-1; every region has the same shape)', () => {
  const region = 'us-east-1';
  const decider = (fn: string) => [...base(fn), ...tableReadWrite('JobsTable'), ...publish, ...armTimers(region, 'vigil-timers')];
  const expected: Record<string, string[]> = {
    SubmitJob: [...decider('SubmitJob'), ...tokenSecret],
    GetJob: [...base('GetJob'), ...tableRead('JobsTable')],
    GetJobTokens: [...base('GetJobTokens'), ...tableRead('JobsTable'), ...tokenSecret],
    GetJobHistory: [...base('GetJobHistory'), ...tableRead('JobsTable')],
    // Its page cursors are sealed under a key derived from the token secret.
    ListJobs: [...base('ListJobs'), ...tableRead('JobsTable'), ...tokenSecret],
    // A failed worker reporting again retires its grants: job decisions (review finding).
    ReportProgress: [...decider('ReportProgress'), ...tokenSecret],
    CompleteWorkflow: [...decider('CompleteWorkflow'), ...tokenSecret],
    RequestExtension: [...decider('RequestExtension'), ...tokenSecret],
    CancelJob: decider('CancelJob'),
    TakeOverJob: decider('TakeOverJob'),
    ReportWorkerFailure: decider('ReportWorkerFailure'),
    Health: base('Health'),
    OpenApi: base('OpenApi'),
    Unrouted: base('Unrouted'),
    SubmitFromGate: [...decider('SubmitFromGate'), ...tokenSecret],
    FireJobTimer: [...decider('FireJobTimer'), ...consume],
    SweepJobTimers: decider('SweepJobTimers'),
    OnGateDecision: [...decider('OnGateDecision'), ...sendTo('GateDecisionDlq')],
    // Agent fleets: claims sign attempt tokens, agent calls check them; both decide on pool items.
    PoolClientApi: [...decider('PoolClientApi'), ...tokenSecret],
    PoolAgentApi: [...decider('PoolAgentApi'), ...tokenSecret],
  };

  it('names every function of the stack', () => {
    const stack = vigil.regional.find((s) => s.region === region);
    expect(Object.keys(stack?.functions ?? {}).sort()).toEqual(Object.keys(expected).sort());
  });

  it.each(Object.entries(expected))('%s', (name, lines) => {
    const stack = vigil.regional.find((s) => s.region === region);
    const fn = stack?.functions[name as keyof typeof stack.functions];
    if (!stack || !fn) throw new Error(`no function ${name} in ${region}`);
    expect(grantsOf(vigil.template(stack), fn)).toEqual(sorted(lines));
  });

  it('WorkerUrlApi (context workerFunctionUrl) may do what the worker and agent route functions it stands in for may', () => {
    const stack = vigil.regional.find((s) => s.region === region);
    const fn = stack?.workerUrl?.fn;
    if (!stack || !fn) throw new Error(`no worker URL function in ${region}`);
    expect(grantsOf(vigil.template(stack), fn)).toEqual(sorted([...decider('WorkerUrlApi'), ...tokenSecret]));
  });

  it('every other region grants the same, in its own region', () => {
    const reference = vigil.regional.find((s) => s.region === region);
    if (!reference) throw new Error(`no stack in ${region}`);
    for (const stack of vigil.regional) {
      for (const [name, fn] of Object.entries(stack.functions)) {
        const own = grantsOf(vigil.template(stack), fn).map((line) => line.replaceAll(`:${stack.region}:`, `:${region}:`));
        const theirs = grantsOf(vigil.template(reference), reference.functions[name as keyof typeof reference.functions]);
        expect(own, `${stack.stackName}/${name}`).toEqual(theirs);
      }
    }
  });
});

describe('exact IAM of every gate function', () => {
  const gateRegion = 'us-east-1';
  const decider = (fn: string) => [...base(fn), ...tableReadWrite('GateTable'), ...publish, ...armTimers(gateRegion, 'vigil-gate-timers')];
  const submitFromGate = ['ap-southeast-2', 'eu-west-1', 'us-east-1'].map(
    (region) => `lambda:InvokeFunction arn:<AWS::Partition>:lambda:${region}:<AWS::AccountId>:function:vigil-submit-from-gate`,
  );
  const expected: Record<string, string[]> = {
    SubmitJob: [...decider('SubmitJob'), ...submitFromGate],
    GetJob: [...base('GetJob'), ...tableRead('GateTable')],
    GetJobHistory: [...base('GetJobHistory'), ...tableRead('GateTable')],
    // Its page cursors are sealed under the gate's own key.
    ListJobs: [...base('ListJobs'), ...tableRead('GateTable'), ...grants(['secretsmanager:GetSecretValue'], ['<PageCursorKeySecret>'])],
    CancelJob: decider('CancelJob'),
    Health: base('Health'),
    OpenApi: base('OpenApi'),
    Unrouted: base('Unrouted'),
    OnManagerReport: [...decider('OnManagerReport'), ...sendTo('ManagerReportDlq')],
    FireGateTimer: [...decider('FireGateTimer'), ...consume],
    SweepGateTimers: decider('SweepGateTimers'),
  };

  it('names every function of the stack', () => {
    expect(Object.keys(vigil.gate.functions).sort()).toEqual(Object.keys(expected).sort());
  });

  it.each(Object.entries(expected))('%s', (name, lines) => {
    const fn = vigil.gate.functions[name as keyof typeof vigil.gate.functions];
    expect(grantsOf(vigil.template(vigil.gate), fn)).toEqual(sorted(lines));
  });
});

describe('context tracing', () => {
  it('adds exactly the X-Ray pair to every function of every stack, and nothing else', () => {
    for (const [plain, withTracing] of [...vigil.regional.map((stack, i) => [stack, traced.regional[i]] as const), [vigil.gate, traced.gate] as const]) {
      if (!withTracing) throw new Error(`no traced twin of ${plain.stackName}`);
      const twins: Record<string, VigilFunction> = functionsOf(withTracing);
      expect(Object.keys(twins).sort(), plain.stackName).toEqual(Object.keys(functionsOf(plain)).sort());
      for (const [name, fn] of Object.entries(functionsOf(plain))) {
        const twin = twins[name];
        if (!twin) throw new Error(`no ${name} in the traced ${plain.stackName}`);
        expect(grantsOf(traced.template(withTracing), twin), `${plain.stackName}/${name}`).toEqual(sorted([...grantsOf(vigil.template(plain), fn), ...XRAY]));
      }
    }
  });
});
