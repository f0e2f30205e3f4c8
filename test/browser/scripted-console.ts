import type { Browser, Page } from 'playwright-core';
import { afterAll, afterEach, beforeAll } from 'vitest';
import type { ConsoleTargets, ForwardedRequest, RawReply } from '../../shared/console/console-routes.js';
import { startConsoleServer } from '../../shared/console/console-server.js';
import { launchChromium } from './chromium.js';

/*
 * The real console page (the esbuild bundle of shared/console/web) in headless Chromium, served by
 * the real `startConsoleServer`, with a scripted forwarder standing in for the listeners' APIs so
 * every answer is under the test's control.
 */

export const REGION_URLS = { 'us-east-1': 'http://use1.vigil.test', 'eu-west-1': 'http://euw1.vigil.test' } as const;
export const GATE_URL = 'http://gate.vigil.test';
const TWO_REGIONS: ConsoleTargets = { regions: { ...REGION_URLS } };

/** Which listener a forwarded URL is for: `gate`, a region, or `?`. */
const sourceOf = (url: URL) =>
  url.host === new URL(GATE_URL).host ? 'gate' : (Object.entries(REGION_URLS).find(([, base]) => new URL(base).host === url.host)?.[0] ?? '?');

export const json = (body: unknown, statusCode = 200): RawReply => ({ statusCode, contentType: 'application/json', body: JSON.stringify(body) });
export const notFound = (): RawReply => json({ error: { code: 'route_not_found', message: 'unscripted' } }, 404);
export const iso = (offsetSeconds: number) => new Date(Date.now() + offsetSeconds * 1000).toISOString();

/** How the scripted listeners answer a forwarded call (`source`: `gate` or the region). */
export type Script = (request: ForwardedRequest, source: string) => RawReply | Promise<RawReply>;

export interface Forwarded {
  at: number;
  method: string;
  source: string;
  path: string;
  body: string;
}

export interface ScriptedConsole {
  /** The page `open` opened last. */
  page: Page;
  /** Every call the page made through the console to a listener, in order. */
  forwarded: Forwarded[];
  /** Answers the calls; unscripted ones are a 404. Reset after each test. */
  script: Script;
  /** A console server for `targets` (two regions unless said), and the page at `hash` on it. */
  open(hash: string, targets?: ConsoleTargets): Promise<Page>;
}

/** Registers the suite's hooks: one browser for the file; a console server and a page per `open`, closed after each test. */
export function useScriptedConsole(): ScriptedConsole {
  let browser: Browser | undefined;
  const servers: Array<Awaited<ReturnType<typeof startConsoleServer>>> = [];
  const harness: ScriptedConsole = {
    page: undefined as unknown as Page,
    forwarded: [],
    script: notFound,
    async open(hash, targets = TWO_REGIONS) {
      const server = await startConsoleServer({
        targets,
        port: 0,
        sign: true,
        forward: async (request) => {
          const source = sourceOf(request.url);
          harness.forwarded.push({ at: Date.now(), method: request.method, source, path: request.url.pathname + request.url.search, body: request.body });
          return harness.script(request, source);
        },
      });
      servers.push(server);
      harness.page = await (browser as Browser).newPage({ viewport: { width: 1280, height: 900 } });
      await harness.page.goto(`${server.pageUrl}${hash}`);
      return harness.page;
    },
  };
  beforeAll(async () => {
    browser = await launchChromium();
  });
  afterEach(async () => {
    await harness.page?.close();
    await Promise.all(servers.splice(0).map((server) => server.close()));
    harness.forwarded.length = 0;
    harness.script = notFound;
  });
  afterAll(async () => {
    await browser?.close();
  });
  return harness;
}

/**
 * Replies a listener holds back (it hangs) until `release`, which sends them all and answers the
 * calls after it at once: a listener that answers late.
 */
export function heldReplies(): { hold(reply: () => RawReply): RawReply | Promise<RawReply>; held(): number; release(): void } {
  const waiting: Array<() => void> = [];
  let holding = true;
  return {
    hold: (reply) => (holding ? new Promise<RawReply>((resolve) => waiting.push(() => resolve(reply()))) : reply()),
    held: () => waiting.length,
    release() {
      holding = false;
      for (const send of waiting.splice(0)) send();
    },
  };
}
