import type { Template } from 'aws-cdk-lib/assertions';
import { beforeAll, describe, expect, it } from 'vitest';
import { synthesizeVigil } from './support/vigil-app.js';
import { actionsOf, arnText, resourcesOf, resourcesOfType, type PolicyStatement } from './support/template-queries.js';

let templates: [string, Template][];
let tracedTemplates: [string, Template][];

const templatesOf = (vigil: ReturnType<typeof synthesizeVigil>): [string, Template][] =>
  [...vigil.regional, vigil.gate].map((stack) => [stack.stackName, vigil.template(stack)]);

beforeAll(() => {
  // Every option that adds a function or a grant is on, so the checks below cover it.
  templates = templatesOf(synthesizeVigil({ context: { workerFunctionUrl: 'true' } }));
  tracedTemplates = templatesOf(synthesizeVigil({ context: { tracing: 'true', workerFunctionUrl: 'true' } }));
});

const allowStatements = (template: Template): PolicyStatement[] =>
  Object.values(resourcesOfType(template, 'AWS::IAM::Policy'))
    .flatMap((policy) => (policy.Properties?.['PolicyDocument'] as { Statement: PolicyStatement[] }).Statement)
    .filter((statement) => statement.Effect === 'Allow');

const XRAY_ACTIONS = ['xray:PutTraceSegments', 'xray:PutTelemetryRecords'];

describe('IAM across every stack', () => {
  it('no statement allows a wildcard action', () => {
    for (const [stackName, template] of templates) {
      const wildcards = allowStatements(template).flatMap(actionsOf).filter((action) => action.includes('*'));
      expect(wildcards, stackName).toEqual([]);
    }
  });

  it('no statement allows Resource "*" unless X-Ray tracing is on (context tracing)', () => {
    for (const [stackName, template] of templates) {
      expect(allowStatements(template).filter((statement) => resourcesOf(statement).includes('*')), stackName).toEqual([]);
    }
  });

  it('with tracing on, Resource "*" appears only for X-Ray, which supports no resource scoping', () => {
    for (const [stackName, template] of tracedTemplates) {
      const unscoped = allowStatements(template).filter((statement) => resourcesOf(statement).includes('*'));
      expect(unscoped.length, stackName).toBeGreaterThan(0);
      for (const statement of unscoped) expect(actionsOf(statement).sort(), stackName).toEqual([...XRAY_ACTIONS].sort());
    }
  });

  it('every other wildcard is confined to one resource of the stack: its table’s indexes or its schedule group', () => {
    const allowed = [/^<\w+Table\w+\.Arn>\/index\/\*$/, /^arn:<AWS::Partition>:scheduler:[a-z0-9-]+:<AWS::AccountId>:schedule\/vigil-(gate-)?timers\/\*$/];
    for (const [stackName, template] of templates) {
      const partial = allowStatements(template)
        .flatMap(resourcesOf)
        .filter((resource) => resource !== '*')
        .map(arnText)
        .filter((arn) => arn.includes('*'));
      expect(partial.length, stackName).toBeGreaterThan(0);
      for (const arn of partial) expect(allowed.some((pattern) => pattern.test(arn)), `${stackName}: ${arn}`).toBe(true);
    }
  });

  it('no role carries an AWS managed policy (log writes are granted on each function’s own log group)', () => {
    for (const [stackName, template] of templates) {
      for (const role of Object.values(resourcesOfType(template, 'AWS::IAM::Role'))) {
        expect(role.Properties?.['ManagedPolicyArns'], stackName).toBeUndefined();
      }
    }
  });

  it('a role EventBridge or Scheduler assumes names the account and the rules or group it serves (no confused deputy)', () => {
    let serviceRoles = 0;
    for (const [stackName, template] of templates) {
      for (const role of Object.values(resourcesOfType(template, 'AWS::IAM::Role'))) {
        const trust = (role.Properties?.['AssumeRolePolicyDocument'] as { Statement: PolicyStatement[] }).Statement;
        for (const statement of trust) {
          const service = (statement.Principal as { Service?: string } | undefined)?.Service;
          if (service !== 'events.amazonaws.com' && service !== 'scheduler.amazonaws.com') continue;
          serviceRoles++;
          const condition = JSON.stringify(statement.Condition ?? {});
          expect(condition, `${stackName}: ${service}`).toContain('aws:SourceAccount');
          expect(condition, `${stackName}: ${service}`).toContain('aws:SourceArn');
        }
      }
    }
    expect(serviceRoles).toBeGreaterThanOrEqual(templates.length * 2);
  });

  it('queue policies only let EventBridge deliver from a named rule, and deny non-TLS access', () => {
    for (const [stackName, template] of templates) {
      const statements = Object.values(resourcesOfType(template, 'AWS::SQS::QueuePolicy')).flatMap(
        (policy) => (policy.Properties?.['PolicyDocument'] as { Statement: PolicyStatement[] }).Statement,
      );
      for (const statement of statements) {
        if (statement.Effect === 'Deny') {
          expect(statement.Condition, stackName).toEqual({ Bool: { 'aws:SecureTransport': 'false' } });
          continue;
        }
        expect(statement.Principal, stackName).toEqual({ Service: 'events.amazonaws.com' });
        expect(statement.Action, stackName).toBe('sqs:SendMessage');
        expect(statement.Condition, stackName).toMatchObject({ ArnEquals: { 'aws:SourceArn': expect.anything() } });
      }
    }
  });

  it('every Lambda resource permission is bound to a source ARN (an API route or a rule), or to calls through the function URL', () => {
    for (const [stackName, template] of templates) {
      for (const permission of Object.values(resourcesOfType(template, 'AWS::Lambda::Permission'))) {
        const properties = permission.Properties ?? {};
        const throughUrl = properties['FunctionUrlAuthType'] === 'NONE' || properties['InvokedViaFunctionUrl'] === true;
        if (throughUrl) expect(JSON.stringify(properties['FunctionName']), stackName).toContain('WorkerUrlApi');
        else expect(properties['SourceArn'], stackName).toBeDefined();
      }
    }
  });
});
