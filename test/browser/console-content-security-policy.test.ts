import type { Page } from 'playwright-core';
import { describe, expect, it } from 'vitest';
import { consoleRoutes, rawReplyHeaders } from '../../shared/console/console-routes.js';
import { startConsoleServer } from '../../shared/console/console-server.js';
import { untilTrueInPage } from './until-true-in-page.js';
import { chromiumAvailable } from './chromium.js';
import { iso, json, notFound, useScriptedConsole } from './scripted-console.js';

/*
 * The console acts with the operator's AWS credentials, and its address carries the run's key. Its
 * page was served with no policy but `frame-ancestors 'none'`: any script that got into it (an id or
 * a message echoed without escaping) would run, and nothing kept the key out of a Referer.
 */

const directives = (policy: string) => new Map(policy.split(';').map((part) => part.trim().split(/\s+/)).map(([name = '', ...sources]) => [name, sources]));

describe('the console page is served with a strict policy', () => {
  it('vigil console: its own script only, its own server only, no referrer', async () => {
    // Prepare
    const server = await startConsoleServer({ targets: { regions: { 'us-east-1': 'http://use1.vigil.test' } }, port: 0, sign: false, forward: async () => json({}) });
    try {
      // Act
      const answer = await fetch(`${server.url}/`);
      // Assess
      const policy = directives(answer.headers.get('content-security-policy') ?? '');
      expect(policy.get('default-src')).toEqual(["'none'"]);
      expect(policy.get('script-src')).toEqual(["'self'"]);
      expect(policy.get('connect-src')).toEqual(["'self'"]);
      expect(policy.get('object-src')).toEqual(["'none'"]);
      expect(policy.get('base-uri')).toEqual(["'none'"]);
      expect(policy.get('frame-ancestors')).toEqual(["'none'"]);
      expect(policy.get('style-src')?.every((source) => /^'sha256-[A-Za-z0-9+/]+=*'$/.test(source))).toBe(true);
      expect(answer.headers.get('referrer-policy')).toBe('no-referrer');
      expect(answer.headers.get('x-content-type-options')).toBe('nosniff');
      expect(answer.headers.get('x-frame-options')).toBe('DENY');
    } finally {
      await server.close();
    }
  });

  it('the local cloud serves the page with the same headers (its gate listener sends a raw reply’s headers)', async () => {
    const routes = consoleRoutes({ targets: () => ({ regions: {} }), forward: async () => json({}), faults: true });
    const reply = await routes('GET', new URL('http://127.0.0.1:4700/'), '');
    const headers = reply ? rawReplyHeaders(reply) : {};
    expect(headers['content-security-policy']).toContain("script-src 'self'");
    expect(headers['referrer-policy']).toBe('no-referrer');
  });
});

describe.skipIf(!chromiumAvailable())('the console page works under its policy (headless Chromium)', () => {
  const ui = useScriptedConsole();

  /** Records every policy violation in the page, from before its first script runs. */
  async function watchViolations(page: Page): Promise<string[]> {
    const violations: string[] = [];
    page.on('console', (message) => {
      if (/Content Security Policy/i.test(message.text())) violations.push(message.text());
    });
    await page.exposeFunction('reportViolation', (text: string) => violations.push(text));
    await page.addInitScript(`document.addEventListener('securitypolicyviolation', (event) => reportViolation(event.effectiveDirective + ' ' + event.blockedURI))`);
    await page.reload();
    await page.waitForSelector('body[data-ready="true"]', { timeout: 10_000 });
    return violations;
  }

  it('every page renders, and its forms answer Enter, with no violation', async () => {
    // Prepare
    ui.script = (request) => {
      const path = request.url.pathname;
      if (path === '/jobs') return json({ jobs: [{ jobId: 'job-1', status: 'RUNNING', strategy: 'local_authority', createdAt: iso(-60), deadlineAt: iso(600) }] });
      if (path === '/escalations') return json({ escalations: [] });
      return notFound();
    };
    const page = await ui.open('#/jobs');
    const violations = await watchViolations(page);
    await page.waitForSelector('tr.job-row[data-job="job-1"]', { timeout: 5_000 });
    // Act: every page; the pools form submitted, and Enter in it
    for (const hash of ['#/job/us-east-1/job-1', '#/escalations', '#/faults', '#/pool/us-east-1/pool-a', '#/pools']) {
      await page.evaluate(`location.hash = '${hash}'`);
      await untilTrueInPage(page, `location.hash === '${hash}' && document.getElementById('controls') !== null`, 5_000);
    }
    await page.fill('#pool-id', 'pool-b');
    await page.evaluate(`document.getElementById('open-pool').requestSubmit()`);
    await page.press('#pool-id', 'Enter');
    // Assess
    await untilTrueInPage(page, `location.hash === '#/pool/us-east-1/pool-b'`, 5_000);
    expect(await page.evaluate('location.search')).toBe('');
    expect(violations).toEqual([]);
  }, 60_000);

  it('a script slipped into the page does not run, and is seen as a violation', async () => {
    // Prepare
    ui.script = (request) => (request.url.pathname === '/jobs' ? json({ jobs: [] }) : notFound());
    const page = await ui.open('#/jobs');
    const violations = await watchViolations(page);
    // Act: what an unescaped id rendered into the page would do
    await page.evaluate(`{
      const script = document.createElement('script');
      script.textContent = 'window.slippedIn = true';
      document.body.append(script);
      document.getElementById('live').insertAdjacentHTML('beforeend', '<img src="x" onerror="window.slippedIn = true">');
    }`);
    // Assess
    await expect.poll(() => violations.length, { timeout: 5_000 }).toBeGreaterThanOrEqual(1);
    expect(await page.evaluate('window.slippedIn')).toBeUndefined();
  }, 30_000);
});
