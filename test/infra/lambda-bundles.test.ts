import { existsSync, mkdtempSync, readFileSync, rmSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { Stack } from 'aws-cdk-lib';
import { build } from 'esbuild';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { repoRoot } from '../../infra/config/repo-paths.js';
import { VIGIL_BUNDLING, type VigilFunction } from '../../infra/constructs/vigil-function.js';
import { synthesizeVigil, type SynthesizedVigil } from './support/vigil-app.js';
import { logicalId, resourceOf, resourcesOfType } from './support/template-queries.js';
import { bundleOutOf, deployedFunctions, esbuildOptionsOf, lambdaEnvironment, loadHandler, onEveryCore, type DeployedFunction } from './support/lambda-bundles.js';

// Review finding: only the gate's bundles were loaded here, so a regional bundle that fails at import
// (an import that breaks once bundled, a module-scope read of a variable the stack does not set) would
// have failed only in AWS. Now every function of every stack is loaded, with its template's environment.

// Bundling every stack through CDK is what `cdk synth` does, one esbuild process per function; here CDK
// bundles one real stack (the bundle shape, and the gate's functions as deployed), and one esbuild build
// of every other entry file at once, with the same settings, stands in for the regional stacks'.
const BUNDLED_STACK = 'Vigil-gate';

let vigil: SynthesizedVigil;
let outdir: string;
/** Every function of every stack; with the worker URL on, so its function is among them. */
let deployed: DeployedFunction[];
/** The test's own bundles of the entries CDK did not bundle, one directory per entry (`<bundles>/functions/api/get-job/index.mjs`). */
let bundles: string;
/** The entry files of every function outside BUNDLED_STACK, which the test bundles itself. */
let testBundled: ReadonlySet<string>;

beforeAll(async () => {
  vigil = synthesizeVigil({ bundleStacks: [BUNDLED_STACK], context: { 'aws:cdk:enable-asset-metadata': true, workerFunctionUrl: 'true' } });
  outdir = vigil.app.synth().directory;
  deployed = deployedFunctions(vigil.app);
  testBundled = new Set(deployed.filter(({ stack }) => stack.stackName !== BUNDLED_STACK).map(({ fn }) => fn.entry));
  bundles = mkdtempSync(join(tmpdir(), 'vigil-lambda-bundles-'));
  await build({
    ...esbuildOptionsOf(VIGIL_BUNDLING),
    entryPoints: [...testBundled].map((entry) => ({ in: join(repoRoot, entry), out: bundleOutOf(entry) })),
    outdir: bundles,
  });
}, 120_000);

afterAll(() => {
  if (bundles) rmSync(bundles, { recursive: true, force: true });
});

/** The directory CDK bundled a function into (its asset), for a function of BUNDLED_STACK. */
function bundleDir(fn: VigilFunction): string {
  const metadata = (resourceOf(vigil.template(Stack.of(fn)), fn.handler) as { Metadata?: Record<string, unknown> }).Metadata;
  const assetPath = metadata?.['aws:asset:path'];
  if (typeof assetPath !== 'string') throw new Error(`${fn.node.path} has no asset metadata`);
  return join(outdir, assetPath);
}

/** The test's own bundle of an entry file. */
const testBundleDir = (entry: string): string => join(bundles, dirname(bundleOutOf(entry)));

/** Where a function's code is: CDK's bundle for BUNDLED_STACK's functions, the test's for the others. */
const taskRootOf = ({ stack, fn }: DeployedFunction): string => (stack.stackName === BUNDLED_STACK ? bundleDir(fn) : testBundleDir(fn.entry));

describe('Lambda bundles (esbuild, offline)', () => {
  it('each gate handler is one ESM file with the createRequire banner and a source map, and no local-cloud code', () => {
    for (const [name, fn] of Object.entries(vigil.gate.functions)) {
      const dir = bundleDir(fn);
      const code = readFileSync(join(dir, 'index.mjs'), 'utf8');
      expect(code.startsWith("import { createRequire as vigilCreateRequire } from 'node:module';"), name).toBe(true);
      expect(existsSync(join(dir, 'index.mjs.map')), name).toBe(true);
      expect(code, name).not.toMatch(/dynalite/);
      expect(statSync(join(dir, 'index.mjs')).size, name).toBeLessThan(3 * 1024 * 1024);
    }
  });

  it("the test's one esbuild build (VIGIL_BUNDLING) makes byte for byte the bundles CDK makes of the same entries (so the test loads what the stacks deploy)", () => {
    // Health and the key rotation run in the gate (bundled by CDK) and in every region (by the test).
    const both = deployed.filter(({ stack, fn }) => stack.stackName === BUNDLED_STACK && testBundled.has(fn.entry));
    expect(both.length).toBeGreaterThan(0);
    for (const { name, fn } of both) {
      const cdkCode = readFileSync(join(bundleDir(fn), 'index.mjs'));
      expect(readFileSync(join(testBundleDir(fn.entry), 'index.mjs')).equals(cdkCode), `${name} (${fn.entry})`).toBe(true);
    }
  });

  it('every Lambda function of every stack is a VigilFunction, so the load test below covers each one', () => {
    const stacks = vigil.app.node.children.filter(Stack.isStack);
    expect(stacks.map((stack) => stack.stackName).sort()).toEqual([...vigil.regional.map((stack) => stack.stackName), vigil.gate.stackName].sort());
    for (const stack of stacks) {
      const lambdas = Object.keys(resourcesOfType(vigil.template(stack), 'AWS::Lambda::Function')).sort();
      const covered = deployed.filter((d) => d.stack === stack).map(({ fn }) => logicalId(fn.handler)).sort();
      expect(covered, `${stack.stackName}: Lambda functions that are not VigilFunctions`).toEqual(lambdas);
    }
  });

  it(
    'every function of every stack loads in a fresh Node process with the environment its stack gives it (template, no AWS credentials) and exports its handler function',
    async () => {
      // Functions with the same bundle, handler and template environment (a regional function in each
      // region: the same logical ids, only the region differs) load once, for all of them.
      const loads = new Map<string, { names: string[]; load: () => Promise<string> }>();
      for (const d of deployed) {
        const template = vigil.template(d.stack);
        const { Handler: handler, Environment: environment } = resourceOf(template, d.fn.handler).Properties ?? {};
        const taskRoot = taskRootOf(d);
        const key = JSON.stringify([taskRoot, handler, environment]);
        const load = loads.get(key) ?? { names: [], load: () => loadHandler(taskRoot, String(handler), lambdaEnvironment(template, d, taskRoot)) };
        loads.set(key, { ...load, names: [...load.names, `${d.name} (${d.fn.entry})`] });
      }
      const answers = await onEveryCore([...loads.values()], async ({ names, load }) => [names.join(', '), await load()] as const);
      const notLoaded = Object.fromEntries(answers.filter(([, answer]) => answer !== 'function'));
      expect(notLoaded, 'functions whose bundle does not load, or whose handler export is not a function').toEqual({});
    },
    120_000,
  );

  it('stacks outside aws:cdk:bundling-stacks are not bundled (what keeps the other infra tests fast)', () => {
    const [regional] = vigil.regional;
    if (!regional) throw new Error('no regional stack');
    const metadata = (resourceOf(vigil.template(regional), regional.functions.GetJob.handler) as { Metadata?: Record<string, unknown> }).Metadata;
    // Unbundled, the asset is the source tree itself.
    expect(metadata?.['aws:asset:path']).toBe(repoRoot.replace(/\/$/, ''));
  });
});
