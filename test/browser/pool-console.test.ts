import { join } from 'node:path';
import type { Browser } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startConsoleServer } from '../../shared/console/console-server.js';
import { chromiumAvailable, launchChromium, SCREENSHOTS_DIR } from './chromium.js';
import { poolApiStub } from './pool-api-stub.js';

/**
 * The pool and escalation pages against the fleets contract's shapes (a stub of those routes behind
 * `vigil console`'s server): what the pages show and send. The routes' own validation is theirs.
 */
describe.skipIf(!chromiumAvailable())('the console’s pool and escalation pages (headless Chromium, contract stub)', () => {
  let browser: Browser;
  let server: Awaited<ReturnType<typeof startConsoleServer>>;
  let stub: ReturnType<typeof poolApiStub>;

  beforeAll(async () => {
    stub = poolApiStub();
    [browser, server] = await Promise.all([
      launchChromium(),
      startConsoleServer({ targets: { regions: { 'us-east-1': 'http://stub.invalid' } }, port: 0, sign: false, forward: stub.forward }),
    ]);
  });
  afterAll(async () => {
    await browser?.close();
    await server?.close();
  });

  it('a pool: counts by state, timeout charts, the DLQ with a retry button, an item’s attempts', async () => {
    const page = await browser.newPage({ viewport: { width: 1280, height: 900 } });
    await page.goto(`${server.url}/#/pool/us-east-1/pool-a`);
    await page.waitForSelector('.count[data-state="running"]');
    expect(await page.textContent('.count[data-state="running"] b')).toBe('4');
    expect(await page.locator('svg.chart').count()).toBe(4);
    expect(await page.textContent('svg.chart[data-chart="timeout rate"]')).toContain('15%');
    await page.fill('#item-id', 'item-7');
    await page.click('button[data-action="show-item"]');
    await page.waitForSelector('#item-detail table.attempts >> text=agent-2');
    await page.screenshot({ path: join(SCREENSHOTS_DIR, 'pool-page-stub.png'), fullPage: true });

    await page.click('button[data-action="retry"][data-item="item-7"]');
    await page.waitForSelector('tr[data-dlq-item="item-7"]', { state: 'detached' });
    expect(await page.textContent('#flash')).toBe('Item item-7 is available again.');
    expect(stub.calls).toContain('POST /pools/pool-a/dlq/item-7/retry');
    await page.close();
  });

  it('an escalation answered from the page leaves the pending list; a second answer shows the API’s error', async () => {
    // Prepare: two operators look at the same pending question.
    const first = await browser.newPage();
    const second = await browser.newPage();
    for (const page of [first, second]) {
      await page.goto(`${server.url}/#/escalations`);
      await page.waitForSelector('[data-escalation="esc-1"] button[data-option="skip"]');
    }
    // The second operator's page does not refresh before they click (a slow network).
    await second.route('**/console/api/*/escalations', (route) => (route.request().method() === 'GET' ? route.abort() : route.continue()));

    // Act
    await first.click('[data-escalation="esc-1"] button[data-option="increase_timeout"]');
    await first.waitForSelector('.escalation[data-escalation="esc-1"]', { state: 'detached' });
    await second.click('[data-escalation="esc-1"] button[data-option="skip"]');

    // Assess
    expect(await first.textContent('#flash')).toBe('Answered esc-1: increase_timeout.');
    expect(await first.textContent('#pending-escalations')).toContain('No pending questions.');
    await second.waitForSelector('#flash.flash-error');
    expect(await second.textContent('#flash')).toBe('409 already_answered: Escalation esc-1 was already answered; each question takes one answer.');
  });
});
