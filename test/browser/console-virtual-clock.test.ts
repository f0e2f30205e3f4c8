import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { Browser, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startLocalCloud, type LocalCloud } from '../../shared/local/local-cloud.js';
import { call } from './console-cloud.js';
import { chromiumAvailable, launchChromium } from './chromium.js';

/*
 * `npm start -- --virtual-clock`: Vigil's time moves only through POST /_local/clock/advance, and every
 * time the API answers (deadlineAt, effectiveDeadlineAt, now) is virtual. The console used to count
 * "time left" on the browser's Date.now(), so after an advance every RUNNING job showed the wrong time
 * left (here "52m … left" for a job with 2 minutes left), beside a timeline drawn at the right `now`.
 */
describe.skipIf(!chromiumAvailable())('console on a virtual-clock local cloud (headless Chromium)', () => {
  let cloud: LocalCloud;
  let dataDir: string;
  let browser: Browser;
  let page: Page;

  beforeAll(async () => {
    dataDir = mkdtempSync(join(tmpdir(), 'vigil-console-vclock-'));
    [cloud, browser] = await Promise.all([
      startLocalCloud({
        port: 0,
        regions: ['us-east-1'],
        dataDir,
        virtualClock: true,
        gateFallbackSeconds: 300,
        stuckThresholdSeconds: 600,
        gateStuckThresholdSeconds: 600,
        sweepIntervalMs: 3_600_000,
      }),
      launchChromium(),
    ]);
    // Prepare: the operator moved Vigil's time 50 minutes ahead, then submitted a 2-minute job.
    const advanced = await call(cloud.endpoints.gate, 'POST', '/_local/clock/advance', { ms: 50 * 60_000 });
    expect(advanced.status).toBe(200);
    const region = cloud.endpoints.regions['us-east-1'] ?? '';
    const submitted = await call(region, 'POST', '/jobs', { jobId: 'vclock-job', timeoutSeconds: 120, workflows: [{ workflowId: 'wf-1', workerId: 'w-1' }] });
    expect(submitted.status).toBe(201);
  });
  afterAll(async () => {
    await page?.close();
    await browser?.close();
    await cloud?.close();
    rmSync(dataDir, { recursive: true, force: true });
  });

  it('the jobs list shows the time left on Vigil’s clock (about 2 minutes), not on the browser’s', async () => {
    page = await browser.newPage({ viewport: { width: 1280, height: 900 } });
    await page.goto(`${cloud.endpoints.gate}/#/jobs`);
    await page.waitForSelector('tr.job-row[data-job="vclock-job"]', { timeout: 10_000 });
    const left = ((await page.textContent('tr.job-row[data-job="vclock-job"] .time-left')) ?? '').trim();
    expect(left).toMatch(/^(1m \d\ds|2m 00s) left$/);
  }, 60_000);

  it('the job page headline agrees with Vigil’s clock (about 2 minutes left)', async () => {
    await page.goto(`${cloud.endpoints.gate}/#/job/us-east-1/vclock-job`);
    await page.waitForSelector('#job-status', { timeout: 10_000 });
    const head = ((await page.textContent('.job-head p')) ?? '').replace(/\s+/g, ' ');
    const left = /· (\S+(?: \S+)?) left/.exec(head)?.[1] ?? head;
    expect(left).toMatch(/^(1m \d\ds|2m 00s)$/);
  }, 60_000);
});
