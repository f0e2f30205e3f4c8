import { join } from 'node:path';
import type { Browser, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { pollUntil } from '../support/poll.js';
import { call, startConsoleCloud } from './console-cloud.js';
import { untilTrueInPage } from './until-true-in-page.js';
import { chromiumAvailable, launchChromium, SCREENSHOTS_DIR } from './chromium.js';

interface Submitted {
  jobId: string;
  workflows: Array<{ workflowId: string; token: string }>;
}

describe.skipIf(!chromiumAvailable())('the console shows jobs as they happen (headless Chromium)', () => {
  let env: Awaited<ReturnType<typeof startConsoleCloud>>;
  let browser: Browser;
  let page: Page;

  beforeAll(async () => {
    // A virtual clock: Vigil's time moves only when a test advances it, so no deadline here races the
    // setup on a busy machine (the page still polls in real time).
    [env, browser] = await Promise.all([startConsoleCloud(['us-east-1', 'eu-west-1'], { virtualClock: true }), launchChromium()]);
    page = await browser.newPage({ viewport: { width: 1280, height: 900 } });
  });
  afterAll(async () => {
    await browser?.close();
    await env?.stop();
  });

  /** Moves Vigil's time forward by `ms`; answers once everything that fell due has run. */
  async function advance(ms: number): Promise<void> {
    const answer = await call(env.cloud.endpoints.gate, 'POST', '/_local/clock/advance', { ms });
    expect(answer.status).toBe(200);
  }

  it('a job times out and the page shows it with its reason without a reload; the timeline shows the extension that moved the deadline', async () => {
    // Prepare, with Vigil's time frozen: a local job of 8 s (stuck threshold 20 s: a 1 s coalescing
    // window), a progress report, one extension (+3 s here), then a heartbeat past the coalescing window.
    const region = env.cloud.endpoints.regions['us-east-1'] ?? '';
    const submitted = await call<Submitted>(region, 'POST', '/jobs', {
      jobId: 'console-timeout',
      timeoutSeconds: 8,
      stuckThresholdSeconds: 20,
      workflows: [{ workflowId: 'wf-1', workerId: 'worker-a' }],
    });
    const token = submitted.body.workflows[0]?.token ?? '';
    await call(region, 'POST', '/jobs/console-timeout/workflows/wf-1/progress', { workerId: 'worker-a', progress: 0.2 }, token);
    const extension = await call<{ granted: boolean }>(region, 'POST', '/workers/worker-a/extensions', { reason: 'long_workflow', currentProgress: 0.3 }, token);
    expect(extension.body.granted).toBe(true);
    await page.goto(`${env.cloud.endpoints.gate}/#/job/us-east-1/console-timeout`);
    await page.waitForSelector('#job-status');
    expect(await page.textContent('#job-status')).toBe('RUNNING');
    const loadedAt = await page.evaluate(() => performance.timeOrigin);
    await advance(1_100);
    await call(region, 'POST', '/jobs/console-timeout/workflows/wf-1/progress', { workerId: 'worker-a' }, token);
    await pollUntil(
      async () => {
        const history = await call<{ entries: Array<{ kind: string }> }>(region, 'GET', '/jobs/console-timeout/history');
        return history.body.entries.some((entry) => entry.kind === 'heartbeat') ? true : undefined;
      },
      { what: 'a heartbeat in the job history', timeoutMs: 10_000, intervalMs: 250 },
    );
    expect(await page.textContent('#job-status')).toBe('RUNNING');

    // Act: time passes beyond the extended deadline (8 s + 3 s); the page polls.
    await advance(11_500 - 1_100);
    await untilTrueInPage(page, `document.getElementById('job-status')?.textContent === 'TIMED_OUT'`, 20_000);

    // Assess: same document (no reload), the reason, and the timeline's marks.
    expect(await page.evaluate(() => performance.timeOrigin)).toBe(loadedAt);
    expect(await page.textContent('#job-reason')).toBe('timeout');
    const arrow = page.locator('[data-kind="extension"]');
    expect(await arrow.count()).toBe(1);
    expect(await arrow.locator('title').textContent()).toMatch(/extension of 3 s for worker-a: deadline .*T.* → .*T.*/);
    const [x1, x2] = await arrow.locator('line').evaluate((line) => [Number(line.getAttribute('x1')), Number(line.getAttribute('x2'))]);
    expect(x2).toBeGreaterThan(x1 ?? Infinity);
    // The arrow starts at the submission's deadline line and ends at the extended one.
    const deadlineX = Number(await page.locator('[data-kind="deadline"] line').getAttribute('x1'));
    const extendedX = Number(await page.locator('[data-kind="effective-deadline"] line').getAttribute('x1'));
    expect(x1).toBeCloseTo(deadlineX, 0);
    expect(x2).toBeCloseTo(extendedX, 0);
    expect(await page.locator('[data-kind="progress"]').count()).toBeGreaterThanOrEqual(1);
    expect(await page.locator('[data-kind="heartbeat"]').count()).toBeGreaterThanOrEqual(1);
    expect(await page.locator('[data-kind="final"] title').textContent()).toMatch(/^TIMED_OUT \(timeout\)/);
    await page.screenshot({ path: join(SCREENSHOTS_DIR, 'job-page.png'), fullPage: true });
  }, 60_000);

  it('the jobs list across regions shows status, strategy and the timeout reason, and filters by status', async () => {
    const gate = env.cloud.endpoints.gate;
    const started = Date.now();
    await page.goto(`${gate}/#/jobs`);
    await page.waitForSelector('tr.job-row[data-job="console-timeout"]');
    const firstRenderMs = Date.now() - started;
    console.info(`time to first render of the jobs list: ${firstRenderMs} ms`);
    const row = page.locator('tr.job-row[data-job="console-timeout"]');
    expect(await row.getAttribute('data-status')).toBe('TIMED_OUT');
    expect(await row.textContent()).toContain('local_authority');
    expect(await row.locator('.time-left').textContent()).toBe('reason: timeout');

    await call(gate, 'POST', '/jobs', {
      jobId: 'console-running',
      timeoutSeconds: 600,
      datacenters: { 'us-east-1': { workflows: [{ workflowId: 'w', workerId: 'x' }] }, 'eu-west-1': { workflows: [{ workflowId: 'w', workerId: 'y' }] } },
    });
    await page.waitForSelector('tr.job-row[data-job="console-running"]');
    expect(await page.locator('tr.job-row[data-job="console-running"] .time-left').textContent()).toMatch(/left$/);
    await page.selectOption('#status-filter', 'TIMED_OUT');
    // A filtered list may show some regions' answers before the others: wait for the running job gone
    // and the timed-out one listed, not merely for the running one gone.
    await untilTrueInPage(page, `document.querySelector('tr.job-row[data-job="console-running"]') === null && document.querySelector('tr.job-row[data-job="console-timeout"]') !== null`);
    expect(await page.locator('tr.job-row[data-job="console-timeout"]').count()).toBe(1);
  }, 60_000);

  it('a gate job: a lane per region and the gate, the takeover with its fence tokens, the decision and each confirmation', async () => {
    const gate = env.cloud.endpoints.gate;
    const eu = env.cloud.endpoints.regions['eu-west-1'] ?? '';
    await call(gate, 'POST', '/jobs', {
      jobId: 'console-global',
      timeoutSeconds: 4,
      datacenters: { 'us-east-1': { workflows: [{ workflowId: 'w', workerId: 'g1' }] }, 'eu-west-1': { workflows: [{ workflowId: 'w', workerId: 'g2' }] } },
    });
    expect((await call(eu, 'POST', '/jobs/console-global/takeover')).status).toBe(200);
    await page.goto(`${gate}/#/job/gate/console-global`);
    // Act: Vigil's time passes the 4 s global deadline, a second at a time (regions report and the
    // gate re-sends its decision every second), until both regions have confirmed to the gate.
    await pollUntil(
      async () => {
        await advance(1_000);
        const view = await call<{ datacenters: Record<string, { status?: string }> }>(gate, 'GET', '/jobs/console-global');
        const confirmed = Object.values(view.body.datacenters ?? {}).filter((dc) => dc.status === 'timed_out').length;
        return confirmed === 2 ? true : undefined;
      },
      { what: 'both regions to confirm the global timeout to the gate', timeoutMs: 30_000, intervalMs: 0 },
    );
    await untilTrueInPage(page, `document.querySelectorAll('.lane[data-source="gate"] [data-kind="confirmed"]').length === 2`, 30_000);
    expect(await page.textContent('#job-status')).toBe('TIMED_OUT');
    expect(await page.locator('.lane').evaluateAll((lanes) => lanes.map((l) => l.getAttribute('data-source')))).toEqual(['gate', 'eu-west-1', 'us-east-1']);
    expect(await page.locator('.lane[data-source="eu-west-1"] [data-kind="takeover"] text').textContent()).toBe('fence 1→2');
    expect(await page.locator('.lane[data-source="gate"] [data-kind="decision"] title').textContent()).toMatch(/gate decision global_timeout/);
    await page.screenshot({ path: join(SCREENSHOTS_DIR, 'gate-job-page.png'), fullPage: true });
  }, 60_000);
  it('the fault panel takes the gate down and heals it; the console keeps working through the outage', async () => {
    const gate = env.cloud.endpoints.gate;
    await page.goto(`${gate}/#/faults`);
    await page.check('#gate-down');
    await page.check('input.cut-off[value="eu-west-1"]');
    await page.click('button[data-action="apply-faults"]');
    await untilTrueInPage(page, `document.getElementById('faults-now')?.textContent.includes('"gateDown": true')`);
    expect(env.cloud.network.faults).toMatchObject({ gateDown: true, cutOff: ['eu-west-1'] });

    // The page is served beside the gate, not by it: the jobs list still shows the regions' jobs.
    await page.goto(`${gate}/#/jobs`);
    await page.waitForSelector('tr.job-row[data-job="console-timeout"]');
    expect(await page.textContent('.problem')).toContain('gate: HTTP 503');

    await page.goto(`${gate}/#/faults`);
    await page.click('button[data-action="clear-faults"]');
    await untilTrueInPage(page, `document.getElementById('faults-now')?.textContent.includes('"gateDown": false')`);
    expect(env.cloud.network.faults).toMatchObject({ gateDown: false, cutOff: [] });
  }, 60_000);
});
