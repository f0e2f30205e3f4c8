import { join } from 'node:path';
import type { Browser } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { PoolClient } from '../support/pool-client.js';
import { pollUntil } from '../support/poll.js';
import { startConsoleCloud } from './console-cloud.js';
import { untilTrueInPage } from './until-true-in-page.js';
import { chromiumAvailable, launchChromium, SCREENSHOTS_DIR } from './chromium.js';

/** The pool and escalation pages on `npm start`'s own fleet routes: what the page does is what the API did. */
describe.skipIf(!chromiumAvailable())('the console’s pools and escalations on the local cloud (headless Chromium)', () => {
  let env: Awaited<ReturnType<typeof startConsoleCloud>>;
  let browser: Browser;
  let pools: PoolClient;

  const timeOutOnce = async (poolId: string, agentId: string) => {
    const attempt = await pollUntil(() => pools.claim(poolId, agentId), { what: `a claim in ${poolId}`, timeoutMs: 5_000, intervalMs: 50 });
    await pollUntil(async () => ((await pools.getItem(poolId, attempt.itemId)).body.state !== 'running' ? true : undefined), {
      what: `${poolId}/${attempt.itemId} to time out`,
      timeoutMs: 10_000,
      intervalMs: 50,
    });
    return attempt.itemId;
  };

  beforeAll(async () => {
    [env, browser] = await Promise.all([startConsoleCloud(['us-east-1']), launchChromium()]);
    pools = new PoolClient(env.cloud.endpoints.regions['us-east-1'] ?? '');
  });
  afterAll(async () => {
    await browser?.close();
    await env?.stop();
  });

  it('a pool page: counts, metrics charts, the DLQ; Retry puts the item back in the pool', async () => {
    // Prepare: one item dead-lettered by an agent timeout, two waiting.
    const config = { agent_timeout_secs: 0.5, timeout_config: { timeout_action: 'dlq', cleanup_grace_period_secs: 0 } };
    expect((await pools.createPool({ poolId: 'console-dlq', items: ['a', 'b', 'c'].map((itemId) => ({ itemId, input: {} })), config })).status).toBe(201);
    // A claim takes a random available item (claim-item.ts): follow whichever one it was.
    const dead = await timeOutOnce('console-dlq', 'agent-1');
    const page = await browser.newPage({ viewport: { width: 1280, height: 900 } });
    await page.goto(`${env.cloud.endpoints.gate}/#/pool/us-east-1/console-dlq`);
    await page.waitForSelector(`tr[data-dlq-item="${dead}"]`);
    expect(await page.textContent('.count[data-state="dlq"] b')).toBe('1');
    expect(await page.textContent('.count[data-state="available"] b')).toBe('2');
    expect(await page.textContent('svg.chart[data-chart="timeout rate"]')).toContain('100%');
    await page.fill('#item-id', dead);
    await page.click('button[data-action="show-item"]');
    await page.waitForSelector('#item-detail table.attempts >> text=agent-1');
    await page.screenshot({ path: join(SCREENSHOTS_DIR, 'pool-page.png'), fullPage: true });

    // Act
    await page.click(`button[data-action="retry"][data-item="${dead}"]`);

    // Assess: the page shows the API's new state without a reload.
    await page.waitForSelector(`tr[data-dlq-item="${dead}"]`, { state: 'detached' });
    await untilTrueInPage(page, `document.querySelector('.count[data-state="available"] b')?.textContent === '3'`);
    expect((await pools.getItem('console-dlq', dead)).body.state).toBe('available');
    await page.close();
  }, 60_000);

  it('an escalation answered from the page is applied and leaves the pending list; the API’s refusals are shown', async () => {
    // Prepare: the second timeout under `retry` escalates the item.
    const config = { agent_timeout_secs: 0.5, timeout_escalation: 2, timeout_config: { timeout_action: 'retry', cleanup_grace_period_secs: 0 } };
    await pools.createPool({ poolId: 'console-esc', items: [{ itemId: 'hard', input: {} }], config });
    await timeOutOnce('console-esc', 'agent-1');
    await timeOutOnce('console-esc', 'agent-2');
    const first = await browser.newPage();
    const second = await browser.newPage();
    const card = '.escalation:has-text("console-esc")';
    for (const page of [first, second]) {
      await page.goto(`${env.cloud.endpoints.gate}/#/escalations`);
      await page.waitForSelector(`${card} button[data-option="increase_timeout"]`);
    }
    // The second page's refreshes now fail: it keeps showing the question it read, and says why it is old.
    await second.route('**/console/api/*/escalations', (route) => (route.request().method() === 'GET' ? route.abort() : route.continue()));
    await second.waitForSelector('.problem:has-text("its last answer is shown")');
    expect(await second.locator(card).count()).toBe(1);

    // Act 1: `clarify` without a text: the API's validation answers, nothing changes.
    await first.click(`${card} button[data-option="clarify"]`);
    await first.waitForSelector('#flash.flash-error');
    expect(await first.textContent('#flash')).toMatch(/^400 invalid_request: .*clarification/);
    expect(await first.locator(card).count()).toBe(1);

    // Act 2: more time, from the page.
    await first.fill(`${card} input[data-field="timeoutSeconds"]`, '900');
    await first.click(`${card} button[data-option="increase_timeout"]`);
    await first.waitForSelector(card, { state: 'detached' });
    const item = (await pools.getItem('console-esc', 'hard')).body;
    expect(item.state).toBe('available');
    const reclaimed = await pools.claim('console-esc', 'agent-3');
    expect(Date.parse(reclaimed?.deadlineAt ?? '') - Date.now()).toBeGreaterThan(800_000);

    // Act 3: the other operator, whose page could not refresh, answers too.
    await second.click(`${card} button[data-option="skip"]`);
    await second.waitForSelector('#flash.flash-error');
    expect(await second.textContent('#flash')).toMatch(/^409 /);
    expect((await pools.getItem('console-esc', 'hard')).body.state).toBe('running');
  }, 60_000);
});
