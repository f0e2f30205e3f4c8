import { Validations } from 'aws-cdk-lib';
import { Queue } from 'aws-cdk-lib/aws-sqs';
import { AwsSolutionsChecks } from 'cdk-nag';
import type { IConstruct } from 'constructs';
import { describe, expect, it } from 'vitest';
import { poolAgentRoutes } from '../../functions/pools/routes.js';
import { synthesizeVigil } from './support/vigil-app.js';

function acknowledgementsUnder(root: IConstruct): { path: string; id: string; reason: string }[] {
  return root.node.findAll().flatMap((construct) =>
    construct.node.metadata
      .filter((entry) => entry.type === Validations.ACKNOWLEDGED_RULES_METADATA_KEY)
      .flatMap((entry) => Object.entries(entry.data as Record<string, string>))
      .map(([id, reason]) => ({ path: construct.node.path, id: id.replace(/^annotation::/i, ''), reason })),
  );
}

/** The acknowledgement ids on one construct itself (not its ancestors). */
const acknowledgedOn = (construct: IConstruct): string[] =>
  construct.node.metadata
    .filter((entry) => entry.type === Validations.ACKNOWLEDGED_RULES_METADATA_KEY)
    .flatMap((entry) => Object.keys(entry.data as Record<string, string>))
    .map((id) => id.replace(/^annotation::/i, ''));

interface AcknowledgementUse {
  /** The construct that carries the acknowledgement. */
  holder: string;
  /** The CloudFormation resource whose finding it accepted. */
  resource: string;
  rule: string;
}

/** Runs the checks and records, for every finding an acknowledgement accepted, where that acknowledgement sits. */
function acknowledgementUses(root: IConstruct): AcknowledgementUse[] {
  const pack = new AwsSolutionsChecks(undefined, { verbose: true });
  const uses: AcknowledgementUse[] = [];
  // cdk-nag keeps this lookup private; the test wraps it to see which construct answered.
  const lookup = pack as unknown as { isAcknowledged(resource: IConstruct, ruleId: string): boolean };
  lookup.isAcknowledged = (resource, ruleId) => {
    for (let current: IConstruct | undefined = resource; current; current = current.node.scope) {
      if (acknowledgedOn(current).includes(ruleId)) {
        uses.push({ holder: current.node.path, resource: resource.node.path, rule: ruleId });
        return true;
      }
    }
    return false;
  };
  pack.validateScope(root);
  return uses;
}

describe('cdk-nag AwsSolutions', () => {
  it.each([
    ['cdk.json defaults (account-agnostic)', {}],
    ['one region that is also the gate, explicit account, no deletion protection', { regions: 'eu-west-1', gateRegion: 'eu-west-1', account: '123456789012', deletionProtection: 'false' }],
    ['X-Ray tracing on, worker routes also behind a function URL', { tracing: 'true', workerFunctionUrl: 'true' }],
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
    ];
    const acknowledgements = acknowledgementsUnder(app);
    expect(acknowledgements.length).toBeGreaterThan(0);
    for (const { path, id, reason } of acknowledgements) {
      expect(reviewed.some((rule) => rule.test(id)), `${path}: ${id}`).toBe(true);
      expect(reason.length, `${path}: ${id}`).toBeGreaterThan(40);
    }
  });

  // Every acknowledgement pinned to its construct, none stack- or app-wide.
  it('every acknowledgement sits on the construct that owns the resource it accepts, and accepts something', () => {
    const { app } = synthesizeVigil();
    const uses = acknowledgementUses(app);
    expect(uses.length).toBeGreaterThan(0);
    for (const { holder, resource, rule } of uses) {
      // The CloudFormation resource is the holder's own default child: not a parent, stack or app.
      expect(resource, `${rule} accepted on ${holder}`).toBe(`${holder}/Resource`);
    }
    const used = new Set(uses.map(({ holder, rule }) => `${holder} ${rule}`));
    const unused = acknowledgementsUnder(app).filter(({ path, id }) => !used.has(`${path} ${id}`));
    expect(unused.map(({ path, id }) => `${path} ${id}`)).toEqual([]);
  });

  it('APIG4 is acknowledged only on the worker routes, the pool agent routes, /health and /openapi.json (GET and HEAD) and the $default route', () => {
    const { app } = synthesizeVigil();
    const unauthorized = acknowledgementsUnder(app)
      .filter(({ id }) => id === 'AwsSolutions-APIG4')
      .map(({ path }) => path.replace(/^Vigil-[^/]+\/HttpApi\/Api\//, ''));
    expect([...new Set(unauthorized)].sort()).toEqual(
      [
        'GET--health',
        'HEAD--health',
        'GET--openapi.json',
        'HEAD--openapi.json',
        'DefaultRoute',
        'POST--jobs--{jobId}--workflows--{workflowId}--complete',
        'POST--jobs--{jobId}--workflows--{workflowId}--progress',
        'POST--workers--{workerId}--extensions',
        ...poolAgentRoutes.map((route) => `${route.method}${route.path.replaceAll('/', '--')}`),
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
