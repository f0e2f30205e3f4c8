import type { RawReply } from '../../shared/console/console-routes.js';
import { describe, expect, it } from 'vitest';
import { chromiumAvailable } from './chromium.js';
import { iso, json, notFound, useScriptedConsole } from './scripted-console.js';

/*
 * a7f72a7 made every refresh of main.ts go through `oneAtATime`, including the one a page change
 * (hashchange) starts. The escalations page then waited for every region (Promise.all; it now waits
 * 2 s at most), and a region that holds its connection is only given up on by the console server
 * after 10 s (forward-within.ts).
 * Leaving that page for the jobs list then shows nothing until the old page's round ends: the jobs
 * list's own 2 s patience ("one that has not answered within 2 s is named ... while the others' rows
 * stay current", docs/console.md) does not help, because its first round has not even started.
 */
describe.skipIf(!chromiumAvailable())('a page change is not held behind the previous page\'s hung round (headless Chromium)', () => {
  const ui = useScriptedConsole();

  it('from the escalations page with eu-west-1 hanging, the jobs list shows us-east-1\'s job within 4 s', async () => {
    ui.script = (request, source) => {
      const path = request.url.pathname;
      if (path === '/escalations') return source === 'eu-west-1' ? new Promise<RawReply>(() => {}) : json({ escalations: [] });
      if (path === '/jobs') {
        return source === 'us-east-1'
          ? json({ jobs: [{ jobId: 'job-1', status: 'RUNNING', strategy: 'local_authority', createdAt: iso(-10), deadlineAt: iso(600) }] })
          : json({ jobs: [] });
      }
      return notFound();
    };
    const page = await ui.open('#/escalations');
    // The escalations round is under way (eu-west-1 holds it).
    await expect.poll(() => ui.forwarded.filter((c) => c.path === '/escalations').length, { timeout: 5_000 }).toBe(2);
    // Act: the operator goes to the jobs list.
    const from = Date.now();
    await page.evaluate("location.hash = '#/jobs'");
    await page.waitForSelector('tr.job-row[data-job="job-1"]', { timeout: 15_000 });
    // Assess: its first answer shows as soon as it is in (and at most after the list's 2 s patience).
    expect(Date.now() - from).toBeLessThan(4_000);
  }, 30_000);
});
