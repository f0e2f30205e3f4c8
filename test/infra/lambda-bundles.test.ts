import { execFileSync } from 'node:child_process';
import { existsSync, readFileSync, statSync } from 'node:fs';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { beforeAll, describe, expect, it } from 'vitest';
import { repoRoot } from '../../infra/config/repo-paths.js';
import type { VigilFunction } from '../../infra/constructs/vigil-function.js';
import { synthesizeVigil, type SynthesizedVigil } from './support/vigil-app.js';
import { resourceOf } from './support/template-queries.js';

// Bundling every stack is what `cdk synth` does; here one real stack is enough to prove the bundle shape.
const BUNDLED_STACK = 'Vigil-gate';

let vigil: SynthesizedVigil;
let outdir: string;

beforeAll(() => {
  vigil = synthesizeVigil({ bundleStacks: [BUNDLED_STACK], context: { 'aws:cdk:enable-asset-metadata': true } });
  outdir = vigil.app.synth().directory;
}, 120_000);

function bundleDir(fn: VigilFunction): string {
  const metadata = (resourceOf(vigil.template(vigil.gate), fn.handler) as { Metadata?: Record<string, unknown> }).Metadata;
  const assetPath = metadata?.['aws:asset:path'];
  if (typeof assetPath !== 'string') throw new Error(`${fn.node.path} has no asset metadata`);
  return join(outdir, assetPath);
}

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

  it('each bundle loads in a fresh Node process without AWS credentials and exports a handler function', () => {
    for (const [name, fn] of Object.entries(vigil.gate.functions)) {
      const bundle = pathToFileURL(join(bundleDir(fn), 'index.mjs')).href;
      const output = execFileSync(
        process.execPath,
        ['--input-type=module', '-e', `const m = await import(${JSON.stringify(bundle)}); console.log(typeof m.handler);`],
        { env: { PATH: process.env['PATH'] ?? '', AWS_REGION: 'us-east-1' }, encoding: 'utf8', timeout: 20_000 },
      );
      expect(output.trim(), name).toBe('function');
    }
  });

  it('stacks outside aws:cdk:bundling-stacks are not bundled (what keeps the other infra tests fast)', () => {
    const [regional] = vigil.regional;
    if (!regional) throw new Error('no regional stack');
    const metadata = (resourceOf(vigil.template(regional), regional.functions.GetJob.handler) as { Metadata?: Record<string, unknown> }).Metadata;
    // Unbundled, the asset is the source tree itself.
    expect(metadata?.['aws:asset:path']).toBe(repoRoot.replace(/\/$/, ''));
  });
});
