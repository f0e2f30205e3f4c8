import { Validations } from 'aws-cdk-lib';
import { Queue } from 'aws-cdk-lib/aws-sqs';
import { AwsSolutionsChecks } from 'cdk-nag';
import type { IConstruct } from 'constructs';
import { describe, expect, it } from 'vitest';
import { synthesizeVigil } from './support/vigil-app.js';

function acknowledgementsUnder(root: IConstruct): { path: string; id: string; reason: string }[] {
  return root.node.findAll().flatMap((construct) =>
    construct.node.metadata
      .filter((entry) => entry.type === Validations.ACKNOWLEDGED_RULES_METADATA_KEY)
      .flatMap((entry) => Object.entries(entry.data as Record<string, string>))
      .map(([id, reason]) => ({ path: construct.node.path, id: id.replace(/^annotation::/i, ''), reason })),
  );
}

describe('cdk-nag AwsSolutions', () => {
  it.each([
    ['cdk.json defaults (account-agnostic)', {}],
    ['one region that is also the gate, explicit account, no deletion protection', { regions: 'eu-west-1', gateRegion: 'eu-west-1', account: '123456789012', deletionProtection: 'false' }],
  ])('reports nothing unacknowledged for %s', (_name, context) => {
    const { app } = synthesizeVigil({ context });
    const report = new AwsSolutionsChecks(undefined, { verbose: true }).validateScope(app);
    expect(report.violations.map((v) => `${v.ruleName}: ${v.violatingResources.map((r) => r.constructPath).join(', ')}`)).toEqual([]);
  });

  it('every acknowledgement names an AwsSolutions rule from the reviewed list and says why', () => {
    const { app } = synthesizeVigil();
    const reviewed = [
      /^AwsSolutions-IAM5\[Resource::\*\]$/,
      /^AwsSolutions-IAM5\[Resource::<\w+Table\w+\.Arn>\/index\/\*\]$/,
      /^AwsSolutions-IAM5\[Resource::arn:<AWS::Partition>:scheduler:[a-z0-9-]+:<AWS::AccountId>:schedule\/vigil-(gate-)?timers\/\*\]$/,
      /^AwsSolutions-L1$/,
      /^AwsSolutions-APIG4$/,
      /^AwsSolutions-SQS3$/,
      /^AwsSolutions-SMG4$/,
    ];
    const acknowledgements = acknowledgementsUnder(app);
    expect(acknowledgements.length).toBeGreaterThan(0);
    for (const { path, id, reason } of acknowledgements) {
      expect(reviewed.some((rule) => rule.test(id)), `${path}: ${id}`).toBe(true);
      expect(reason.length, `${path}: ${id}`).toBeGreaterThan(40);
    }
  });

  it('APIG4 is acknowledged only on the worker routes, /health and /openapi.json', () => {
    const { app } = synthesizeVigil();
    const unauthorized = acknowledgementsUnder(app)
      .filter(({ id }) => id === 'AwsSolutions-APIG4')
      .map(({ path }) => path.replace(/^Vigil-[^/]+\/HttpApi\/Api\//, ''));
    expect([...new Set(unauthorized)].sort()).toEqual(
      [
        'GET--health',
        'GET--openapi.json',
        'POST--jobs--{jobId}--workflows--{workflowId}--complete',
        'POST--jobs--{jobId}--workflows--{workflowId}--progress',
        'POST--workers--{workerId}--extensions',
      ].sort(),
    );
  });

  it('the checks run inside synthesis: a new unacknowledged finding stops `cdk synth`', () => {
    const vigil = synthesizeVigil();
    new Queue(vigil.gate, 'QueueWithoutDlq');
    expect(() => vigil.app.synth({ force: true })).toThrow(/AwsSolutions-SQS3[\s\S]*QueueWithoutDlq|QueueWithoutDlq[\s\S]*AwsSolutions-SQS3/);
  });

  it('the whole app synthesizes with the checks and CloudFormation schema validation on, without AWS credentials', () => {
    const { app } = synthesizeVigil({ cloudFormationValidation: true });
    const assembly = app.synth();
    expect(assembly.stacks.map((stack) => stack.stackName).sort()).toEqual(
      ['Vigil-ap-southeast-2', 'Vigil-eu-west-1', 'Vigil-gate', 'Vigil-us-east-1'].sort(),
    );
    // Bundles every handler of four stacks with esbuild (about 40 of them): slow on a shared machine.
  }, 180_000);
});
