import { describe, expect, it } from 'vitest';
import { chromiumAvailable } from './chromium.js';
import { heldReplies, iso, json, notFound, useScriptedConsole } from './scripted-console.js';

/*
 * The escalations page asks each region on its own (as the jobs list does): it used to await every
 * region (Promise.all), so one region that holds its connection kept every other region's questions
 * off the page until the console gave up on it (10 s, 504), and said nothing of it meanwhile.
 */
describe.skipIf(!chromiumAvailable())('the escalations page with a region that hangs (headless Chromium, scripted listeners)', () => {
  const ui = useScriptedConsole();
  const asked = (region: string) => ({ escalationId: `nightly~task-${region}~1`, poolId: 'nightly', itemId: `task-${region}`, question: `Task in ${region} timed out twice.`, options: ['skip'], askedAt: iso(-60), status: 'pending' });

  it('us-east-1’s question shows within 3 s with eu-west-1 named, eu-west-1 is not asked again meanwhile, and its question comes when it answers', async () => {
    const late = heldReplies();
    ui.script = (request, source) => {
      if (request.method !== 'GET' || request.url.pathname !== '/escalations') return notFound();
      const reply = () => json({ escalations: [asked(source)] });
      return source === 'eu-west-1' ? late.hold(reply) : reply();
    };
    const page = await ui.open('#/escalations');
    await page.waitForSelector('.card.escalation[data-region="us-east-1"]', { timeout: 3_000 });
    await page.waitForSelector('#live .problem:has-text("eu-west-1: no answer for")', { timeout: 5_000 });
    expect(await page.textContent('#live .problem')).toMatch(/^Not answering: eu-west-1: no answer for \d+ s$/);
    const calls = (region: string) => ui.forwarded.filter((call) => call.source === region && call.path === '/escalations').length;
    await expect.poll(() => calls('us-east-1'), { timeout: 15_000 }).toBeGreaterThanOrEqual(3);
    expect(calls('eu-west-1')).toBe(1);
    // Act
    late.release();
    // Assess
    await page.waitForSelector('.card.escalation[data-region="eu-west-1"]', { timeout: 5_000 });
    await expect.poll(() => page.locator('#live .problem').count(), { timeout: 5_000 }).toBe(0);
  }, 30_000);

  it('while a region has not answered, an empty page does not claim there are no pending questions at all', async () => {
    const late = heldReplies();
    ui.script = (request, source) => (request.url.pathname !== '/escalations' ? notFound() : source === 'eu-west-1' ? late.hold(() => json({ escalations: [] })) : json({ escalations: [] }));
    const page = await ui.open('#/escalations');
    await page.waitForSelector('#live .problem:has-text("eu-west-1: no answer for")', { timeout: 5_000 });
    expect(await page.textContent('#pending-escalations')).toBe('No pending questions in the regions that answered.');
    // Act
    late.release();
    // Assess
    await expect.poll(() => page.textContent('#pending-escalations'), { timeout: 5_000 }).toBe('No pending questions.');
  }, 30_000);

  it('a region that fails shows its error beside the other region’s questions', async () => {
    ui.script = (request, source) => {
      if (request.url.pathname !== '/escalations') return notFound();
      return source === 'eu-west-1' ? json({ error: { code: 'upstream_unavailable', message: 'cut off' } }, 503) : json({ escalations: [asked(source)] });
    };
    const page = await ui.open('#/escalations');
    await page.waitForSelector('.card.escalation[data-region="us-east-1"]', { timeout: 3_000 });
    expect(await page.textContent('#live .problem')).toBe('Not answering: eu-west-1: 503 upstream_unavailable: cut off');
  }, 30_000);
});
