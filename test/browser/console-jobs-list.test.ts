import type { RawReply } from '../../shared/console/console-routes.js';
import { describe, expect, it } from 'vitest';
import { chromiumAvailable } from './chromium.js';
import { iso, json, notFound, useScriptedConsole } from './scripted-console.js';

/* The jobs list against scripted listeners: console review findings, each of which failed on the console as it was. */
describe.skipIf(!chromiumAvailable())('the jobs list (headless Chromium, scripted listeners)', () => {
  const ui = useScriptedConsole();

  it('one listener that does not answer neither freezes the others’ rows on stale statuses nor goes unreported', async () => {
    // The page used to await every listener (Promise.all) and the poll loop the round; neither call
    // had a timeout. With eu-west-1 hanging, us-east-1's job, ended, stayed "RUNNING … left" with no word.
    let ended = false;
    let hang = false;
    ui.script = (request, source) => {
      if (request.url.pathname !== '/jobs') return notFound();
      if (source === 'eu-west-1') return hang ? new Promise<RawReply>(() => {}) : json({ jobs: [] });
      const job = { jobId: 'ending-job', strategy: 'local_authority', createdAt: iso(-120), deadlineAt: iso(-1) };
      return json({ jobs: [ended ? { ...job, status: 'TIMED_OUT', timeoutReason: 'timeout', finishedAt: iso(-1) } : { ...job, status: 'RUNNING' }] });
    };
    const page = await ui.open('#/jobs');
    await page.waitForSelector('tr.job-row[data-job="ending-job"][data-status="RUNNING"]', { timeout: 5_000 });
    // Act
    hang = true;
    ended = true;
    // Assess: the answering region's news shows, and the hanging one is named.
    await page.waitForSelector('tr.job-row[data-job="ending-job"][data-status="TIMED_OUT"]', { timeout: 5_000 });
    await page.waitForSelector('#live .problem:has-text("eu-west-1: no answer for")', { timeout: 5_000 });
    expect(await page.textContent('#live .problem')).toMatch(/^Not answering: eu-west-1: no answer for \d+ s$/);
  }, 30_000);

  it('the "filter by id" advice finds a job past each listener’s newest 100 (a whole id is asked by GET /jobs/{jobId})', async () => {
    // With more than 100 jobs a listener the page says "More jobs follow: filter by status or id"; the
    // id filter used to search only the rows read, so a job submitted yesterday among 10,000 was never found.
    const job = (n: number, createdAt: string) => ({ jobId: `batch-${String(n).padStart(5, '0')}`, status: 'RUNNING', strategy: 'local_authority', createdAt, deadlineAt: iso(3600) });
    ui.script = (request, source) => {
      const path = request.url.pathname;
      if (source !== 'us-east-1') return path === '/jobs' ? json({ jobs: [] }) : notFound();
      if (path === '/jobs') {
        const cursor = Number(request.url.searchParams.get('cursor') ?? '0');
        const jobs = Array.from({ length: 100 }, (_, i) => job(10_000 - cursor - i, iso(-(cursor + i))));
        return json({ jobs, nextCursor: String(cursor + 100) });
      }
      if (path === '/jobs/batch-00042') return json({ ...job(42, iso(-86_400)), fenceToken: 1, workflows: [] });
      return notFound();
    };
    const page = await ui.open('#/jobs');
    await page.waitForSelector('tr.job-row', { timeout: 5_000 });
    expect(await page.textContent('#live')).toMatch(/filter by status or id/);
    // Act
    await page.fill('#job-filter', 'batch-00042');
    // Assess
    const row = await page.waitForSelector('tr.job-row[data-job="batch-00042"]', { timeout: 5_000 });
    expect(await row.getAttribute('data-status')).toBe('RUNNING');
    expect(await page.locator('tr.job-row').count()).toBe(1);
  }, 30_000);

  it('two jobs submitted on different days at the same time of day are told apart in "Submitted"', async () => {
    // The list spans 30 days of jobs, but "Submitted" printed the time of day only.
    const createdToday = iso(-60);
    const createdEarlier = new Date(Date.parse(createdToday) - 3 * 86_400_000).toISOString();
    ui.script = (request, source) => {
      if (request.url.pathname !== '/jobs') return notFound();
      if (source !== 'us-east-1') return json({ jobs: [] });
      return json({
        jobs: [
          { jobId: 'today', status: 'COMPLETED', strategy: 'local_authority', createdAt: createdToday, deadlineAt: iso(3600), finishedAt: iso(-30) },
          { jobId: 'three-days-ago', status: 'COMPLETED', strategy: 'local_authority', createdAt: createdEarlier, deadlineAt: createdEarlier, finishedAt: createdEarlier },
        ],
      });
    };
    const page = await ui.open('#/jobs');
    await page.waitForSelector('tr.job-row[data-job="three-days-ago"]', { timeout: 5_000 });
    const submitted = async (id: string) => ((await page.textContent(`tr.job-row[data-job="${id}"] td:last-child`)) ?? '').trim();
    expect(await submitted('three-days-ago')).not.toBe(await submitted('today'));
  }, 30_000);

  it('typing in the id filter sends no request per keystroke (one round of listing calls per second at most)', async () => {
    // main.ts says "one request round per second at most", but every keystroke in the controls used to
    // start a full refresh of every listener, side by side with the poll: a 20-character id, 20 rounds.
    ui.script = (request) => (request.url.pathname === '/jobs' ? json({ jobs: [] }) : notFound());
    const page = await ui.open('#/jobs');
    await page.waitForSelector('table.jobs', { timeout: 5_000 });
    await page.waitForTimeout(300);
    // Act
    const from = Date.now();
    await page.type('#job-filter', 'nightly-batch-2025-11', { delay: 20 });
    const until = from + 1_000;
    await page.waitForTimeout(Math.max(0, until - Date.now()) + 200);
    // Assess: one poll round in that second, and at most one more for the change itself.
    const rounds = ui.forwarded.filter((c) => c.path.startsWith('/jobs') && c.source === 'us-east-1' && c.at >= from && c.at <= until).length;
    expect(rounds).toBeLessThanOrEqual(2);
  }, 30_000);
});
