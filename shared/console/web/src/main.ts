import { endpoints, keepConsoleKey, type Endpoints } from './api.js';
import { esc } from './escape.js';
import { rewriteKeepingOperatorState } from './keep-operator-state.js';
import { oneAtATime } from './one-at-a-time.js';
import type { Flash, Page } from './page.js';
import { escalationsPage } from './pages/escalations-page.js';
import { faultsPage } from './pages/faults-page.js';
import { jobPage } from './pages/job-page.js';
import { jobsPage } from './pages/jobs-page.js';
import { poolPage, poolsIndexPage } from './pages/pools-page.js';

/** Polling keeps every page current without a reload; one request round per second at most. */
const POLL_MS = 1_000;

/** A link's part as written when it is not valid percent-encoding (a hand-edited link): the page still opens. */
function decodedOrAsIs(part: string): string {
  try {
    return decodeURIComponent(part);
  } catch {
    return part;
  }
}

function route(where: Endpoints): Page {
  const parts = location.hash.replace(/^#\/?/, '').split('/').map(decodedOrAsIs);
  const [name, a = '', b = ''] = parts;
  if (name === 'job' && a && b) return jobPage(where, a, b);
  if (name === 'pools') return poolsIndexPage(where);
  if (name === 'pool' && a && b) return poolPage(a, b);
  if (name === 'escalations') return escalationsPage(where);
  if (name === 'faults') return faultsPage(where);
  return jobsPage(where);
}

function showFlash(flash: Flash | undefined) {
  const element = document.getElementById('flash');
  if (!element || !flash) return;
  element.className = `flash flash-${flash.kind}`;
  element.textContent = flash.text;
}

async function start() {
  keepConsoleKey();
  const main = document.getElementById('main') as HTMLElement;
  const where = await endpoints().catch((error: unknown) => {
    main.innerHTML = `<p class="problem">The console server refused this page (${esc(String(error))}).</p>`;
    return undefined;
  });
  if (!where) return;
  let page = route(where);
  let visit = 0;
  let lastLive = '';

  // One round of requests at a time per visit of a page: a new page does not wait behind the last one's round (its answer is dropped).
  let refresh: () => Promise<void> = async () => undefined;
  const render = () => {
    visit++;
    refresh = oneAtATime(round);
    lastLive = '';
    document.title = `Vigil · ${page.title}`;
    main.innerHTML = `<div id="controls">${page.controls()}</div><div id="live" aria-live="polite"></div>`;
    for (const link of document.querySelectorAll<HTMLAnchorElement>('nav a')) {
      link.classList.toggle('active', location.hash.startsWith(link.getAttribute('href') ?? '#?'));
    }
  };
  const show = (html: string) => {
    const live = document.getElementById('live');
    if (!live || html === lastLive) return;
    rewriteKeepingOperatorState(live, html);
    lastLive = html;
  };
  async function round(): Promise<void> {
    const mine = visit;
    try {
      const html = await page.live();
      if (mine !== visit) return;
      show(html);
      document.getElementById('connection')?.replaceChildren();
    } catch (error) {
      if (mine !== visit) return;
      const element = document.getElementById('connection');
      if (element) element.innerHTML = `<span class="problem">Vigil is not answering (${esc(String(error))}); retrying.</span>`;
    }
  }

  window.addEventListener('hashchange', () => {
    page = route(where);
    render();
    void refresh();
  });
  const inControls = (event: Event) => (event.target as HTMLElement).closest('#controls') !== null;
  // A keystroke filters what was read, without a request; a changed choice asks again (after the round under way).
  main.addEventListener('input', (event) => {
    if (inControls(event) && page.view) show(page.view());
  });
  main.addEventListener('change', (event) => {
    if (inControls(event)) void refresh();
  });
  // A form acts through its buttons' data-action: submitted, it would load the page anew (its policy refuses that).
  main.addEventListener('submit', (event) => event.preventDefault());
  main.addEventListener('click', async (event) => {
    const target = (event.target as HTMLElement).closest<HTMLElement>('[data-action]');
    if (!target || !page.act) return;
    event.preventDefault();
    (target as HTMLButtonElement).disabled = true;
    try {
      showFlash(await page.act(target.dataset['action'] ?? '', target, main));
    } finally {
      (target as HTMLButtonElement).disabled = false;
    }
    void refresh();
  });

  render();
  await refresh();
  document.body.dataset['ready'] = 'true';
  const loop = async () => {
    await refresh();
    setTimeout(loop, POLL_MS);
  };
  setTimeout(loop, POLL_MS);
}

void start();
