import { describe, expect, it } from 'vitest';
import { jobHistory } from '../support/job-history.js';
import { chromiumAvailable } from './chromium.js';
import { GATE_URL, heldReplies, json, notFound, REGION_URLS, useScriptedConsole, type Script } from './scripted-console.js';

/*
 * A job's page asks each listener on its own (as the jobs list does): it used to await every region's
 * job and history (Promise.all), so one region that holds its connection held the whole page back
 * until the console gave up on it (10 s, 504), the others' news unseen and the silent one unnamed.
 */
describe.skipIf(!chromiumAvailable())('a job page with a listener that hangs (headless Chromium, scripted listeners)', () => {
  const ui = useScriptedConsole();
  const targets = { gate: GATE_URL, regions: { ...REGION_URLS } };
  const started = Date.now() - 20_000;

  /** Gate job `g-1` in both regions, each listener answering for itself; `hung` holds its replies back. */
  const gateJob =
    (hung: string, late: ReturnType<typeof heldReplies>): Script =>
    (request, source) => {
      const path = request.url.pathname;
      const reply = () => {
        if (path === '/jobs/g-1/history') {
          const regions = source === 'gate' ? { regions: ['us-east-1', 'eu-west-1'] } : {};
          return json(jobHistory(started, { jobId: 'g-1', source, strategy: 'gate_coordinated', ...regions }));
        }
        if (path === '/jobs/g-1' && source !== 'gate') return json({ jobId: 'g-1', status: 'RUNNING', strategy: 'gate_coordinated', fenceToken: 1, workflows: [] });
        return notFound();
      };
      return source === hung ? late.hold(reply) : reply();
    };

  it('with eu-west-1 hanging, us-east-1’s card shows within 3 s, eu-west-1 is named, and its card comes when it answers', async () => {
    const late = heldReplies();
    ui.script = gateJob('eu-west-1', late);
    const page = await ui.open('#/job/gate/g-1', targets);
    await page.waitForSelector('.card.region[data-region="us-east-1"] .status-RUNNING', { timeout: 3_000 });
    await page.waitForSelector('#live .problem:has-text("eu-west-1: no answer for")', { timeout: 5_000 });
    expect(await page.locator('#job-status').textContent()).toBe('RUNNING');
    expect(await page.locator('.card.region[data-region="eu-west-1"]').count()).toBe(0);
    // Act: eu-west-1 answers at last.
    late.release();
    // Assess
    await page.waitForSelector('.card.region[data-region="eu-west-1"] .status-RUNNING', { timeout: 5_000 });
    await expect.poll(() => page.locator('#live .problem').count(), { timeout: 5_000 }).toBe(0);
  }, 30_000);

  it('a region that hangs is not asked again before it answers, while the others are asked every round', async () => {
    const late = heldReplies();
    ui.script = gateJob('eu-west-1', late);
    await ui.open('#/job/gate/g-1', targets);
    const asked = (source: string) => ui.forwarded.filter((call) => call.source === source && call.path === '/jobs/g-1/history').length;
    await expect.poll(() => asked('us-east-1'), { timeout: 15_000 }).toBeGreaterThanOrEqual(3);
    expect(asked('eu-west-1')).toBe(1);
    late.release();
  }, 30_000);

  it('with the gate hanging, the regions’ cards show within 3 s under a word that the gate has not answered; the gate’s status comes when it does', async () => {
    const late = heldReplies();
    ui.script = gateJob('gate', late);
    const page = await ui.open('#/job/gate/g-1', targets);
    await page.waitForSelector('.card.region[data-region="us-east-1"] .status-RUNNING', { timeout: 3_000 });
    await page.waitForSelector('.card.region[data-region="eu-west-1"] .status-RUNNING', { timeout: 3_000 });
    await page.waitForSelector('#live .problem:has-text("gate: no answer for")', { timeout: 5_000 });
    expect(await page.textContent('.job-head .problem')).toMatch(/The gate did not answer/);
    // Act
    late.release();
    // Assess
    await page.waitForSelector('#job-status.status-RUNNING', { timeout: 5_000 });
    await expect.poll(() => page.locator('#live .problem').count(), { timeout: 5_000 }).toBe(0);
  }, 30_000);

  it('a region job page whose region hangs names it instead of staying blank until the console gives up', async () => {
    const late = heldReplies();
    ui.script = (request, source) => late.hold(() => (request.url.pathname === '/jobs/r-1/history' ? json(jobHistory(started, { jobId: 'r-1', source })) : json({ jobId: 'r-1', status: 'RUNNING', strategy: 'local_authority', fenceToken: 1, workflows: [] })));
    const page = await ui.open('#/job/us-east-1/r-1');
    await page.waitForSelector('#live .problem:has-text("us-east-1: no answer for")', { timeout: 3_500 });
    // Act
    late.release();
    // Assess
    await page.waitForSelector('#job-status.status-RUNNING', { timeout: 5_000 });
    await page.waitForSelector('.card.region[data-region="us-east-1"]', { timeout: 5_000 });
  }, 30_000);
});
