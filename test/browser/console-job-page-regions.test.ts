import { describe, expect, it } from 'vitest';
import { jobHistory } from '../support/job-history.js';
import { chromiumAvailable } from './chromium.js';
import { GATE_URL, iso, json, notFound, REGION_URLS, useScriptedConsole } from './scripted-console.js';

/* A job's regions on its page, against scripted listeners: console review findings, each of which failed on the console as it was. */
describe.skipIf(!chromiumAvailable())('a job page’s regions (headless Chromium, scripted listeners)', () => {
  const ui = useScriptedConsole();

  it('a region the console does not forward to says so on its card, not "not answering"', async () => {
    // `vigil console --gate-endpoint G --endpoint E` forwards to the gate and one region. A gate job that
    // also runs in another region got the console's own 404 unknown_target for it, and the card said
    // "not answering": during an incident that reads as a regional outage while eu-west-1 is fine.
    const started = Date.now() - 20_000;
    ui.script = (request, source) => {
      const path = request.url.pathname;
      if (path === '/jobs/g-1/history') {
        return json(source === 'gate' ? jobHistory(started, { jobId: 'g-1', source: 'gate', strategy: 'gate_coordinated', regions: ['us-east-1', 'eu-west-1'] }) : jobHistory(started, { jobId: 'g-1', source }));
      }
      if (path === '/jobs/g-1') return json({ jobId: 'g-1', status: 'RUNNING', strategy: 'gate_coordinated', fenceToken: 1, workflows: [] });
      return notFound();
    };
    const page = await ui.open('#/job/gate/g-1', { gate: GATE_URL, regions: { 'us-east-1': REGION_URLS['us-east-1'] } });
    await page.waitForSelector('.card.region[data-region="eu-west-1"]', { timeout: 5_000 });
    const card = ((await page.textContent('.card.region[data-region="eu-west-1"]')) ?? '').replace(/\s+/g, ' ').trim();
    expect(card).not.toMatch(/not answering/);
    expect(card).toMatch(/404 unknown_target: No listener 'eu-west-1' behind this console/);
  }, 30_000);

  it('long (valid, 128-character) workflow and worker ids stay inside their region card', async () => {
    // Ids are 1–128 characters of [A-Za-z0-9._:-] (contract): no break opportunity. Nothing wrapped
    // or clipped the workflows table, so one long id pushed it out of its card.
    const long = (prefix: string) => `${prefix}-${'x'.repeat(200)}`.slice(0, 128);
    ui.script = (request, source) => {
      const path = request.url.pathname;
      if (path === '/jobs/long-ids/history') return json(jobHistory(Date.now() - 10_000, { jobId: 'long-ids', source }));
      if (path === '/jobs/long-ids') {
        const workflow = { workflowId: long(`wf-${source}`), workerId: long(`worker-${source}`), state: 'running', lastProgressAt: iso(-5) };
        return json({ jobId: 'long-ids', status: 'RUNNING', strategy: 'local_authority', fenceToken: 1, workflows: [workflow] });
      }
      return notFound();
    };
    const page = await ui.open('#/job/us-east-1/long-ids');
    await page.waitForSelector('.card.region table.workflows', { timeout: 5_000 });
    const { cardRight, tableRight } = await page.$eval('.card.region', (card) => ({
      cardRight: Math.round(card.getBoundingClientRect().right),
      tableRight: Math.round(card.querySelector('table.workflows')!.getBoundingClientRect().right),
    }));
    expect(tableRight).toBeLessThanOrEqual(cardRight);
  }, 30_000);

  it('a gate job with the gate down (the fault the panel offers) still shows its regions’ lanes and cards', async () => {
    // The fault switches are there "to watch an outage play out on a job's timeline" (docs/console.md),
    // but the page of a gate-coordinated job showed one line, "gate answered HTTP 503", and nothing of
    // the regions, which still answer and are where the outage plays out (takeovers, local timeouts).
    ui.script = (request, source) => {
      const path = request.url.pathname;
      if (source === 'gate') return json({ error: { code: 'upstream_unavailable', message: 'The gate is down (fault injected).' } }, 503);
      if (path === '/jobs/g-2/history') return json(jobHistory(Date.now() - 10_000, { jobId: 'g-2', source, strategy: 'gate_coordinated' }));
      if (path === '/jobs/g-2') return json({ jobId: 'g-2', status: 'RUNNING', strategy: 'gate_coordinated', fenceToken: 1, workflows: [] });
      return notFound();
    };
    const page = await ui.open('#/job/gate/g-2', { gate: GATE_URL, regions: { ...REGION_URLS } });
    await page.waitForSelector('.card.region', { timeout: 5_000 });
    const lanes = await page.locator('.lane').evaluateAll((all) => all.map((l) => l.getAttribute('data-source')));
    const cards = await page.locator('.card.region').evaluateAll((all) => all.map((c) => c.getAttribute('data-region')));
    expect({ lanes: lanes.sort(), cards: cards.sort() }).toEqual({ lanes: ['eu-west-1', 'us-east-1'], cards: ['eu-west-1', 'us-east-1'] });
    expect(await page.textContent('.job-head .problem')).toMatch(/The gate did not answer \(503 upstream_unavailable/);
  }, 30_000);
});
