/**
 * Sizes and import cost of every Lambda bundle in a synthesized cloud assembly.
 *   npx cdk synth --quiet && npx tsx infra/tools/bundle-report.ts [cdk.out]
 * Import cost is measured inside a fresh Node process (startup excluded), median of several runs,
 * next to an empty handler measured the same way.
 */
import { execFileSync } from 'node:child_process';
import { mkdtempSync, readdirSync, readFileSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { pathToFileURL } from 'node:url';
import { gzipSync } from 'node:zlib';

const RUNS = 5;
const assemblyDir = resolve(process.argv[2] ?? 'cdk.out');

interface LambdaBundle {
  functions: string[];
  file: string;
}

function bundlesIn(dir: string): LambdaBundle[] {
  const byAsset = new Map<string, string[]>();
  for (const templateFile of readdirSync(dir).filter((name) => name.endsWith('.template.json'))) {
    const resources = (JSON.parse(readFileSync(join(dir, templateFile), 'utf8')) as { Resources: Record<string, CfnResource> }).Resources;
    for (const resource of Object.values(resources)) {
      const assetPath = resource.Metadata?.['aws:asset:path'];
      if (resource.Type !== 'AWS::Lambda::Function' || typeof assetPath !== 'string') continue;
      const name = String(resource.Metadata?.['aws:cdk:path'] ?? templateFile).replace(/\/Handler\/Resource$/, '');
      byAsset.set(assetPath, [...(byAsset.get(assetPath) ?? []), name]);
    }
  }
  return [...byAsset].map(([assetPath, functions]) => ({ functions, file: join(dir, assetPath, 'index.mjs') }));
}

interface CfnResource {
  Type: string;
  Metadata?: Record<string, unknown>;
}

function importMs(file: string): number {
  const script = `const t = performance.now(); await import(${JSON.stringify(pathToFileURL(file).href)}); console.log(performance.now() - t);`;
  const samples = Array.from({ length: RUNS }, () =>
    Number(execFileSync(process.execPath, ['--input-type=module', '-e', script], { encoding: 'utf8', env: { PATH: process.env['PATH'] ?? '', AWS_REGION: 'us-east-1' } })),
  ).sort((a, b) => a - b);
  return samples[Math.floor(RUNS / 2)] ?? Number.NaN;
}

const kib = (bytes: number) => `${(bytes / 1024).toFixed(0)} KiB`;

const scratch = mkdtempSync(join(tmpdir(), 'vigil-empty-handler-'));
try {
  const empty = join(scratch, 'index.mjs');
  writeFileSync(empty, 'export const handler = async () => ({});\n');
  const emptyMs = importMs(empty);
  const rows = bundlesIn(assemblyDir)
    .map(({ functions, file }) => {
      const code = readFileSync(file);
      const handlers = new Set(functions.map((path) => path.split('/').slice(1).join('/')));
      return {
        function: [...handlers].join(', '),
        stacks: functions.map((path) => path.split('/')[0]).join(' '),
        'index.mjs': kib(statSync(file).size),
        gzip: kib(gzipSync(code).length),
        map: kib(statSync(`${file}.map`).size),
        'import ms': importMs(file).toFixed(1),
      };
    })
    .sort((a, b) => a.function.localeCompare(b.function));
  console.table(rows);
  console.log(`empty handler import: ${emptyMs.toFixed(1)} ms (median of ${RUNS}, node ${process.version})`);
} finally {
  rmSync(scratch, { recursive: true, force: true });
}
