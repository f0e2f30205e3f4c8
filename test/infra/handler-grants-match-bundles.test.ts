import { build } from 'esbuild';
import type { Stack } from 'aws-cdk-lib';
import { beforeAll, describe, expect, it } from 'vitest';
import { repoRoot } from '../../infra/config/repo-paths.js';
import type { HandlerSpec } from '../../infra/constructs/handler-access.js';
import type { VigilFunction } from '../../infra/constructs/vigil-function.js';
import { gateHandlers } from '../../infra/stacks/gate-handlers.js';
import { regionalHandlers, workerUrlHandler } from '../../infra/stacks/regional-handlers.js';
import { synthesizeVigil, type SynthesizedVigil } from './support/vigil-app.js';
import { actionsOf, logicalId, resourcesOfType, statementsOfRole } from './support/template-queries.js';

// Review findings: a handler whose bundle runs decision effects lacked their grants (report-progress),
// and a role description with "…" that IAM refuses failed every regional deployment.

let vigil: SynthesizedVigil;

beforeAll(() => {
  vigil = synthesizeVigil({ context: { workerFunctionUrl: 'true' } });
});

/** A handler's bundle as esbuild builds it for Lambda (tree-shaken, packages external). */
const bundle = (entry: string) =>
  build({ absWorkingDir: repoRoot, entryPoints: [entry], bundle: true, write: false, metafile: true, platform: 'node', format: 'esm', target: 'node22', packages: 'external', outdir: 'review-out', logLevel: 'silent' });

/**
 * The repository modules esbuild keeps in a handler's bundle (tree-shaken), relative to the repo
 * root: what the deployed function can actually run, not what its spec says it does.
 */
async function modulesRunBy(entry: string): Promise<string[]> {
  const output = Object.values((await bundle(entry)).metafile.outputs)[0];
  if (!output) throw new Error(`esbuild produced nothing for ${entry}`);
  return Object.entries(output.inputs)
    .filter(([, input]) => input.bytesInOutput > 0)
    .map(([path]) => path);
}

/** Every deployed handler: its stack, name, function and spec. */
function* deployedHandlers(): Generator<{ stack: Stack; name: string; fn: VigilFunction; spec: HandlerSpec }> {
  const [regional] = vigil.regional;
  if (!regional) throw new Error('no regional stack');
  const checks: [Stack, Record<string, VigilFunction>, Record<string, HandlerSpec>][] = [
    [regional, regional.functions, regionalHandlers],
    [vigil.gate, vigil.gate.functions, gateHandlers],
  ];
  if (regional.workerUrl) checks.push([regional, { WorkerUrlApi: regional.workerUrl.fn }, { WorkerUrlApi: workerUrlHandler }]);
  for (const [stack, functions, specs] of checks) {
    for (const [name, fn] of Object.entries(functions)) {
      const spec = specs[name];
      if (!spec) throw new Error(`no spec for ${name}`);
      yield { stack, name, fn, spec };
    }
  }
}

/** The DynamoDB calls a bundle's code makes, as the IAM actions they need (lib-dynamodb and client-dynamodb command names). */
async function dynamoActionsRunBy(entry: string): Promise<string[]> {
  const text = (await bundle(entry)).outputFiles.map((file) => file.text).join('\n');
  const commands = new Set([...text.matchAll(/new (Get|Put|Update|Delete|Query|Scan|BatchGet|BatchWrite|TransactGet|TransactWrite)(?:Item)?Command\(/g)].map((match) => match[1] ?? ''));
  const action: Record<string, string> = {
    Get: 'GetItem', Put: 'PutItem', Update: 'UpdateItem', Delete: 'DeleteItem', Query: 'Query', Scan: 'Scan',
    BatchGet: 'BatchGetItem', BatchWrite: 'BatchWriteItem', TransactGet: 'TransactGetItems', TransactWrite: 'TransactWriteItems',
  };
  return [...commands].map((command) => `dynamodb:${action[command] ?? command}`);
}

/** The decision-effect runner: ArmTimer (SQS SendMessage / Scheduler CreateSchedule+PassRole) and Publish (PutEvents). */
const EFFECT_RUNNER = 'shared/app/effect-runner.ts';
const ARM_AND_PUBLISH = ['sqs:SendMessage', 'scheduler:CreateSchedule', 'scheduler:UpdateSchedule', 'iam:PassRole', 'events:PutEvents'];

function missingEffectGrants(stack: Stack, fn: VigilFunction): string[] {
  const actions = statementsOfRole(vigil.template(stack), logicalId(fn.role)).flatMap(actionsOf);
  return ARM_AND_PUBLISH.filter((action) => !actions.includes(action));
}

describe('grants match what each bundle runs', () => {
  it(
    'every handler whose bundle runs decision effects (ArmTimer/Publish) may arm timers and publish, including report-progress (worker recovery retires grants and re-arms)',
    async () => {
      const broken: Record<string, string[]> = {};
      for (const { stack, name, fn, spec } of deployedHandlers()) {
        if (!(await modulesRunBy(spec.entry)).includes(EFFECT_RUNNER)) continue;
        const missing = missingEffectGrants(stack, fn);
        if (missing.length > 0) broken[`${stack.stackName}/${name}`] = missing;
      }
      // report-progress -> recordHealthcheck -> (failed worker is back) retireWorkerGrantsEverywhere
      // -> decideJob -> runEffects: timers.arm() throws AccessDenied, the progress call answers 500.
      expect(broken).toEqual({});
    },
    120_000,
  );
});

describe('table grants match the DynamoDB calls each bundle makes', () => {
  it(
    'every DynamoDB command in a writing handler\'s bundle is granted to its role (a split\'s reservation release once used DeleteItem, which no role has)',
    async () => {
      const missing: Record<string, string[]> = {};
      for (const { stack, name, fn, spec } of deployedHandlers()) {
        // A read-only handler's bundle holds its stores' write methods, which it never calls (tree-shaking keeps class methods).
        if (spec.access?.table !== 'readWrite') continue;
        const granted = statementsOfRole(vigil.template(stack), logicalId(fn.role)).flatMap(actionsOf);
        const lacking = (await dynamoActionsRunBy(spec.entry)).filter((action) => !granted.includes(action));
        if (lacking.length > 0) missing[`${stack.stackName}/${name}`] = lacking;
      }
      expect(missing).toEqual({});
    },
    180_000,
  );
});

// IAM CreateRole/UpdateRole: Description matches [\u0009\u000A\u000D\u0020-\u007E\u00A1-\u00FF]*, at most 1,000 characters.
const IAM_DESCRIPTION = /^[\u0009\u000A\u000D\u0020-\u007E\u00A1-\u00FF]{0,1000}$/;

describe('deployability', () => {
  it('every IAM role description is one IAM accepts (no characters outside Latin-1, such as "…")', () => {
    const rejected: string[] = [];
    for (const stack of [...vigil.regional, vigil.gate]) {
      for (const [id, role] of Object.entries(resourcesOfType(vigil.template(stack), 'AWS::IAM::Role'))) {
        const description = role.Properties?.['Description'];
        if (typeof description === 'string' && !IAM_DESCRIPTION.test(description)) rejected.push(`${stack.stackName}/${id}: ${description}`);
      }
    }
    expect(rejected).toEqual([]);
  });
});
