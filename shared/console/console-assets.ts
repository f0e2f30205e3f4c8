import { readFile } from 'node:fs/promises';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { pageHeaders } from './page-policy.js';

const CONSOLE_DIR = resolve(dirname(fileURLToPath(import.meta.url)), 'web');

export interface ConsoleAssets {
  html: string;
  /** The page's Content-Security-Policy and Referrer-Policy (see page-policy.ts). */
  htmlHeaders: Record<string, string>;
  js: string;
}

/** The page and its script, bundled with esbuild (minified, one ES module) on first use. */
export async function buildConsoleAssets(): Promise<ConsoleAssets> {
  const { build } = await import('esbuild');
  const result = await build({
    entryPoints: [join(CONSOLE_DIR, 'src', 'main.ts')],
    bundle: true,
    minify: true,
    format: 'esm',
    target: 'es2022',
    write: false,
    logLevel: 'silent',
  });
  const [output] = result.outputFiles;
  if (!output) throw new Error('esbuild produced no console bundle');
  const html = await readFile(join(CONSOLE_DIR, 'index.html'), 'utf8');
  return { html, htmlHeaders: pageHeaders(html), js: output.text };
}

let cached: Promise<ConsoleAssets> | undefined;
export const consoleAssets = (): Promise<ConsoleAssets> => (cached ??= buildConsoleAssets());
