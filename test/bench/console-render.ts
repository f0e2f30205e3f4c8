import { existsSync } from 'node:fs';
import { join } from 'node:path';
import { gzipSync } from 'node:zlib';
import { buildConsoleAssets } from '../../shared/console/console-assets.js';
import { CHROMIUM, launchChromium } from '../browser/chromium.js';
import { call } from '../browser/console-cloud.js';
import { untilTrueInPage } from '../browser/until-true-in-page.js';
import { BenchChild } from './bench-child.js';
import { consoleCloudReady } from './messages.js';
import { summarize } from './stats.js';
import { fmtMs, formatTable } from './table.js';

const JOBS = 30;
const RUNS = 10;

/**
 * The console's weight and its time to first render against the local cloud (a bench child, its
 * logs silent): a fresh page until the jobs list shows every job, beside the same browser loading a
 * bare JSON route of the same listener (navigation without the console) in the same run.
 */
export async function benchConsole(root: string, children: BenchChild[], { jobs = JOBS, runs = RUNS } = {}): Promise<string> {
  const assets = await buildConsoleAssets();
  const size = formatTable(
    ['asset', 'bytes', 'gzip'],
    [
      ['console/app.js (minified)', String(Buffer.byteLength(assets.js)), String(gzipSync(assets.js).length)],
      ['index.html (with CSS)', String(Buffer.byteLength(assets.html)), String(gzipSync(assets.html).length)],
    ],
  );
  if (!existsSync(CHROMIUM)) return `${size}\n\ntime to first render: not measured, ${CHROMIUM} is missing`;

  const cloud = BenchChild.start('console-render-cloud.ts', [], join(root, 'console-cloud.log'));
  children.push(cloud);
  const { gateUrl: gate, regionUrl: region } = await cloud.receive(consoleCloudReady, 60_000);
  const browser = await launchChromium();
  try {
    for (let i = 0; i < jobs; i++) {
      await call(region, 'POST', '/jobs', { jobId: `render-${i}`, timeoutSeconds: 600, workflows: [{ workflowId: 'wf', workerId: `w-${i}` }] });
    }
    const render: number[] = [];
    const baseline: number[] = [];
    for (let run = 0; run < runs; run++) {
      for (const [url, samples, ready] of [
        [`${gate}/#/jobs`, render, `document.querySelectorAll('tr.job-row').length >= ${jobs}`],
        [`${gate}/health`, baseline, 'document.readyState === "complete"'],
      ] as const) {
        const page = await browser.newPage();
        const started = performance.now();
        await page.goto(url);
        // Polled every 5 ms for both pages, so the poll adds the same to each.
        await untilTrueInPage(page, ready, 30_000, 5);
        samples.push(performance.now() - started);
        await page.close();
      }
    }
    const r = summarize(render);
    const b = summarize(baseline);
    const table = formatTable(
      ['page (fresh tab, local cloud)', 'runs', 'p50', 'p99', 'max'],
      [
        [`console jobs list, ${jobs} jobs shown`, String(r.count), fmtMs(r.p50), fmtMs(r.p99), fmtMs(r.max)],
        ['baseline: GET /health in the same browser', String(b.count), fmtMs(b.p50), fmtMs(b.p99), fmtMs(b.max)],
      ],
    );
    return `${size}\n\n${table}\n(the first console load also bundles the page with esbuild; later loads are served from memory)`;
  } finally {
    await browser.close();
    await cloud.stop();
  }
}
