import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { App, type Stack } from 'aws-cdk-lib';
import { Template } from 'aws-cdk-lib/assertions';
import { cdkJsonContext } from '../../../infra/config/cdk-json-context.js';
import type { VigilFunction } from '../../../infra/constructs/vigil-function.js';
import type { RegionalStack } from '../../../infra/stacks/regional-stack.js';
import { buildVigil, type VigilStacks } from '../../../infra/vigil-app.js';

export { cdkJsonContext };

export interface SynthOptions {
  /** Extra `-c` values on top of cdk.json. */
  readonly context?: Record<string, unknown>;
  /** Stack names whose Lambda bundles esbuild really builds; none by default, which keeps synth fast. */
  readonly bundleStacks?: readonly string[];
  /** CDK's built-in CloudFormation schema validation: seconds per synth, so only the synth test runs it. */
  readonly cloudFormationValidation?: boolean;
}

export interface SynthesizedVigil extends VigilStacks {
  readonly app: App;
  template(stack: Stack): Template;
}

// Each app synthesizes into its own directory under one per-process parent, removed when the worker exits.
const outdirParent = mkdtempSync(join(tmpdir(), 'vigil-infra-test-'));
process.once('exit', () => rmSync(outdirParent, { recursive: true, force: true }));

/** Builds the app exactly like infra/app.ts, with cdk.json's context and no AWS credentials. */
export function synthesizeVigil(options: SynthOptions = {}): SynthesizedVigil {
  const app = new App({
    outdir: mkdtempSync(join(outdirParent, 'cdk.out-')),
    builtinCloudFormationValidation: options.cloudFormationValidation ?? false,
    context: { ...cdkJsonContext(), 'aws:cdk:bundling-stacks': options.bundleStacks ?? [], ...options.context },
  });
  // No CDK_DEFAULT_ACCOUNT: the same as a fresh machine without credentials.
  const stacks = buildVigil(app, {});
  const templates = new Map<Stack, Template>();
  return {
    app,
    ...stacks,
    template(stack) {
      let template = templates.get(stack);
      if (!template) templates.set(stack, (template = Template.fromStack(stack)));
      return template;
    },
  };
}

/** A stack's Vigil functions by name, the worker URL's (`WorkerUrlApi`) included when it has one. */
export function functionsOf(stack: VigilStacks['gate'] | RegionalStack): Record<string, VigilFunction> {
  return { ...stack.functions, ...('workerUrl' in stack && stack.workerUrl ? { WorkerUrlApi: stack.workerUrl.fn } : {}) };
}
