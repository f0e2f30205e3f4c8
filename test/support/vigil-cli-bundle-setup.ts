import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { build } from 'esbuild';
import type { TestProject } from 'vitest/node';

const CLI_MAIN = fileURLToPath(new URL('../../shared/cli/main.ts', import.meta.url));

/**
 * Once per test run of a project whose files spawn the `vigil` command by the dozen (CLI, runner,
 * SDK): bundles the command's sources with esbuild into one file, so each spawn runs `node` on it
 * instead of the package's bin, which transpiles every source through tsx at each start (~1 s of a
 * core each; the bundle starts in a third of that). Same sources, same esbuild transform tsx uses;
 * the bin itself stays covered by the cases that ask for it (`runVigil(…, { shipped: true })`).
 * In watch mode a rerun rebuilds it, so an edited command is what runs.
 */
export default async function setup(project: TestProject): Promise<() => void> {
  const dir = mkdtempSync(join(tmpdir(), 'vigil-cli-bundle-'));
  const bundle = join(dir, 'vigil.mjs');
  await bundleCli(bundle);
  project.provide('vigilCliBundle', bundle);
  project.onTestsRerun(() => bundleCli(bundle));
  return () => rmSync(dir, { recursive: true, force: true });
}

async function bundleCli(outfile: string): Promise<void> {
  await build({
    entryPoints: [CLI_MAIN],
    outfile,
    bundle: true,
    platform: 'node',
    format: 'esm',
    target: 'node20',
    // Only `vigil console` loads esbuild (to build its page), and it never runs from the bundle.
    external: ['esbuild'],
    // The bundled CommonJS dependencies (the AWS SDK) require Node's built-in modules.
    banner: { js: "import { createRequire as vigilCreateRequire } from 'node:module'; const require = vigilCreateRequire(import.meta.url);" },
    logLevel: 'error',
  });
}

declare module 'vitest' {
  export interface ProvidedContext {
    /** The `vigil` command bundled for this run (absent in projects without this setup). */
    vigilCliBundle: string;
  }
}
