import { execFile } from 'node:child_process';
import { availableParallelism } from 'node:os';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { promisify } from 'node:util';
import { Stack, Token, type App } from 'aws-cdk-lib';
import type { Template } from 'aws-cdk-lib/assertions';
import type { BuildOptions } from 'esbuild';
import { repoRoot } from '../../../infra/config/repo-paths.js';
import { VigilFunction, VIGIL_BUNDLING } from '../../../infra/constructs/vigil-function.js';
import { resourceOf } from './template-queries.js';

/**
 * The esbuild options NodejsFunction turns `VIGIL_BUNDLING` into (aws-cdk-lib's `buildEsbuildArgs`:
 * `--bundle --platform=node` and one flag per option), for any number of entry points in one build.
 * An option this does not know throws rather than being left out, so the test's bundles cannot
 * quietly drift from the deployed ones (the gate's are also compared byte for byte with CDK's).
 */
export function esbuildOptionsOf(bundling: typeof VIGIL_BUNDLING): BuildOptions {
  const { format, target, mainFields, banner, minify, sourceMap, sourcesContent, bundleAwsSDK, ...unknown } = bundling;
  if (Object.keys(unknown).length > 0) throw new Error(`esbuildOptionsOf: map the bundling option(s) ${Object.keys(unknown).join(', ')} as NodejsFunction does`);
  if (!bundleAwsSDK) throw new Error('esbuildOptionsOf: with bundleAwsSDK false, NodejsFunction marks the SDK external; mirror its externals here');
  return {
    absWorkingDir: repoRoot,
    bundle: true,
    platform: 'node',
    format,
    target,
    mainFields,
    banner: { js: banner },
    minify,
    sourcemap: sourceMap,
    sourcesContent,
    // NodejsFunction names an ESM bundle index.mjs.
    outExtension: { '.js': '.mjs' },
    logLevel: 'silent',
  };
}

/** A Lambda function as deployed: its stack, construct path (`Vigil-eu-west-1/SubmitJob`) and Vigil construct. */
export interface DeployedFunction {
  readonly stack: Stack;
  readonly name: string;
  readonly fn: VigilFunction;
}

/** Every Vigil function of every stack of the app, in construct order. */
export function deployedFunctions(app: App): DeployedFunction[] {
  return app.node
    .findAll()
    .filter((construct): construct is VigilFunction => construct instanceof VigilFunction)
    .map((fn) => ({ stack: Stack.of(fn), name: fn.node.path, fn }));
}

/** Where a bundle of `entry` lands under the test's output directory (one directory per entry, like an asset). */
export const bundleOutOf = (entry: string): string => `${entry.replace(/\.[cm]?[jt]s$/, '')}/index`;

const PLACEHOLDER_ACCOUNT = '123456789012';

/**
 * A template value as the function would see it once deployed: CloudFormation's intrinsics resolved
 * to values of the real shape (a queue's URL, a secret's ARN, ...) for the stack's region. An
 * intrinsic it does not know throws: a handler must not be loaded with a made-up value.
 */
export function renderValue(value: unknown, template: Template, stack: Stack): string {
  const region = Token.isUnresolved(stack.region) ? 'us-east-1' : stack.region;
  const resources = template.toJSON()['Resources'] as Record<string, { Type: string; Properties?: Record<string, unknown> }>;
  const physicalName = (id: string, property: string): string => {
    const name = resources[id]?.Properties?.[property];
    return typeof name === 'string' ? name : `${stack.stackName}-${id}-PLACEHOLDER`;
  };
  const pseudo: Record<string, string> = {
    'AWS::Region': region,
    'AWS::AccountId': PLACEHOLDER_ACCOUNT,
    'AWS::Partition': 'aws',
    'AWS::URLSuffix': 'amazonaws.com',
    'AWS::StackName': stack.stackName,
  };
  const ref = (id: string): string => {
    const known = pseudo[id];
    if (known !== undefined) return known;
    const type = resources[id]?.Type;
    switch (type) {
      case 'AWS::SQS::Queue':
        return `https://sqs.${region}.amazonaws.com/${PLACEHOLDER_ACCOUNT}/${physicalName(id, 'QueueName')}`;
      case 'AWS::SecretsManager::Secret':
        return `arn:aws:secretsmanager:${region}:${PLACEHOLDER_ACCOUNT}:secret:${physicalName(id, 'Name')}-AbCdEf`;
      case 'AWS::DynamoDB::Table':
      case 'AWS::DynamoDB::GlobalTable':
        return physicalName(id, 'TableName');
      case 'AWS::Events::EventBus':
        return physicalName(id, 'Name');
      case 'AWS::Lambda::Function':
        return physicalName(id, 'FunctionName');
      default:
        throw new Error(`no deployed value for { Ref: ${id} } (${type ?? 'no such resource'}): teach renderValue its shape`);
    }
  };
  const getAtt = (id: string, attribute: string): string => {
    const type = resources[id]?.Type;
    if (attribute !== 'Arn' || !type) throw new Error(`no deployed value for { Fn::GetAtt: [${id}, ${attribute}] }: teach renderValue its shape`);
    if (type === 'AWS::IAM::Role') return `arn:aws:iam::${PLACEHOLDER_ACCOUNT}:role/${physicalName(id, 'RoleName')}`;
    if (type === 'AWS::SQS::Queue') return `arn:aws:sqs:${region}:${PLACEHOLDER_ACCOUNT}:${physicalName(id, 'QueueName')}`;
    const service = type.split('::')[1]?.toLowerCase();
    return `arn:aws:${service}:${region}:${PLACEHOLDER_ACCOUNT}:${id}`;
  };
  const render = (node: unknown): string => {
    if (typeof node === 'string') return node;
    if (typeof node === 'number' || typeof node === 'boolean') return String(node);
    if (node !== null && typeof node === 'object') {
      const intrinsic = node as Record<string, unknown>;
      if (typeof intrinsic['Ref'] === 'string') return ref(intrinsic['Ref']);
      const att = intrinsic['Fn::GetAtt'];
      if (Array.isArray(att) && typeof att[0] === 'string' && typeof att[1] === 'string') return getAtt(att[0], att[1]);
      const joined = intrinsic['Fn::Join'];
      if (Array.isArray(joined) && typeof joined[0] === 'string' && Array.isArray(joined[1])) return joined[1].map(render).join(joined[0]);
    }
    throw new Error(`no deployed value for ${JSON.stringify(node)}: teach renderValue its shape`);
  };
  return render(value);
}

/**
 * What a function's process sees on Lambda at import time: the variables its stack sets (from the
 * synthesized template, nothing more) and those Lambda itself sets (no credentials: nothing may
 * call AWS before the first invocation).
 */
export function lambdaEnvironment(template: Template, { stack, fn }: DeployedFunction, taskRoot: string): Record<string, string> {
  const properties = resourceOf(template, fn.handler).Properties ?? {};
  const variables = (properties['Environment'] as { Variables?: Record<string, unknown> } | undefined)?.Variables ?? {};
  const region = renderValue({ Ref: 'AWS::Region' }, template, stack);
  const logging = (properties['LoggingConfig'] ?? {}) as { LogFormat?: string; ApplicationLogLevel?: string };
  return {
    PATH: process.env['PATH'] ?? '',
    LANG: 'en_US.UTF-8',
    TZ: ':UTC',
    AWS_REGION: region,
    AWS_DEFAULT_REGION: region,
    AWS_EXECUTION_ENV: `AWS_Lambda_${String(properties['Runtime'])}`,
    AWS_LAMBDA_FUNCTION_NAME: renderValue(properties['FunctionName'] ?? `${stack.stackName}-${fn.node.id}-PLACEHOLDER`, template, stack),
    AWS_LAMBDA_FUNCTION_MEMORY_SIZE: String(properties['MemorySize'] ?? 128),
    AWS_LAMBDA_FUNCTION_VERSION: '$LATEST',
    ...(logging.LogFormat === 'JSON' ? { AWS_LAMBDA_LOG_FORMAT: 'JSON', AWS_LAMBDA_LOG_LEVEL: logging.ApplicationLogLevel ?? 'INFO' } : {}),
    LAMBDA_TASK_ROOT: taskRoot,
    LAMBDA_RUNTIME_DIR: '/var/runtime',
    _HANDLER: String(properties['Handler']),
    ...Object.fromEntries(Object.entries(variables).map(([name, value]) => [name, renderValue(value, template, stack)])),
  };
}

const execFileAsync = promisify(execFile);

/**
 * Imports `<taskRoot>/<file>.mjs` in a fresh Node process with only `env`, as Lambda's Node runtime
 * does for the handler `<file>.<export>`, and answers what the export is (`function`), or the
 * import's error.
 */
export async function loadHandler(taskRoot: string, handler: string, env: Record<string, string>): Promise<string> {
  const match = /^([^.]+)\.(\w+)$/.exec(handler);
  if (!match) return `unexpected Handler ${handler}`;
  const [, file = '', exportName = ''] = match;
  const url = pathToFileURL(join(taskRoot, `${file}.mjs`)).href;
  const script = `const m = await import(${JSON.stringify(url)}); console.log('vigil-export:' + typeof m[${JSON.stringify(exportName)}]);`;
  try {
    const { stdout } = await execFileAsync(process.execPath, ['--input-type=module', '-e', script], { env, encoding: 'utf8', timeout: 30_000 });
    return /vigil-export:(\w+)/.exec(stdout)?.[1] ?? `no answer; stdout: ${stdout.slice(0, 500)}`;
  } catch (error) {
    const { stderr, message } = error as { stderr?: string; message: string };
    return `import failed: ${(stderr || message).trim().split('\n').slice(0, 8).join('\n')}`;
  }
}

/** Runs `work` over `items`, as many at once as there are cores. */
export async function onEveryCore<T, R>(items: readonly T[], work: (item: T) => Promise<R>): Promise<R[]> {
  const results: R[] = new Array<R>(items.length);
  let next = 0;
  const lane = async (): Promise<void> => {
    while (next < items.length) {
      const index = next++;
      results[index] = await work(items[index] as T);
    }
  };
  await Promise.all(Array.from({ length: Math.min(availableParallelism(), items.length) }, lane));
  return results;
}
