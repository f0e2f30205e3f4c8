/** The console talks to Vigil only through its own server: `/console/api/<gate|region>/<route>`. */
export interface ApiAnswer<Body = unknown> {
  ok: boolean;
  status: number;
  body: Body;
}

export interface Endpoints {
  gate: boolean;
  regions: string[];
  /** The local cloud's fault injection is reachable (npm start only). */
  faults: boolean;
}

const KEY_ITEM = 'vigil.consoleKey';

/**
 * `vigil console` prints its address with a key (`/?key=…`): kept for this origin (the port's own
 * storage) and taken out of the address bar; every call sends it. The local cloud's asks none.
 */
export function keepConsoleKey(): void {
  const given = new URLSearchParams(location.search).get('key');
  if (given === null) return;
  localStorage.setItem(KEY_ITEM, given);
  history.replaceState(null, '', `${location.pathname}${location.hash}`);
}

const keyHeader = (): Record<string, string> => {
  const key = localStorage.getItem(KEY_ITEM);
  return key ? { 'x-vigil-console-key': key } : {};
};

export async function api<Body = unknown>(target: string, path: string, init?: { method?: string; body?: unknown }): Promise<ApiAnswer<Body>> {
  const response = await fetch(`/console/api/${encodeURIComponent(target)}${path}`, {
    method: init?.method ?? 'GET',
    headers: { ...keyHeader(), ...(init?.body !== undefined ? { 'content-type': 'application/json' } : {}) },
    ...(init?.body !== undefined ? { body: JSON.stringify(init.body) } : {}),
  });
  const text = await response.text();
  let body: unknown = text;
  try {
    body = text ? JSON.parse(text) : undefined;
  } catch {
    // not JSON: keep the text
  }
  return { ok: response.ok, status: response.status, body: body as Body };
}

/** Pages a live view follows at most per refresh; beyond, it says the list goes on. */
const MAX_PAGES = 20;

/**
 * Every page of a paged listing (`?cursor=` / `nextCursor`), `listKey` entries joined, or only as
 * many pages as hold `enough` entries; `more` when entries follow that were not read. A page may be
 * empty and still name a cursor (a filtered listing): it is followed. The first failing page's
 * answer is returned as is.
 */
export async function apiAllPages<Entry>(
  target: string,
  path: string,
  listKey: string,
  enough = Number.POSITIVE_INFINITY,
): Promise<ApiAnswer<{ entries: Entry[]; more: boolean }>> {
  const entries: Entry[] = [];
  let cursor: string | undefined;
  for (let page = 0; page < MAX_PAGES; page++) {
    const separator = path.includes('?') ? '&' : '?';
    const answer = await api<Record<string, unknown>>(target, cursor === undefined ? path : `${path}${separator}cursor=${encodeURIComponent(cursor)}`);
    if (!answer.ok) return answer as unknown as ApiAnswer<{ entries: Entry[]; more: boolean }>; // its body is the error; callers check `ok`
    const list = answer.body[listKey];
    if (Array.isArray(list)) entries.push(...(list as Entry[]));
    cursor = typeof answer.body['nextCursor'] === 'string' ? answer.body['nextCursor'] : undefined;
    if (cursor === undefined) return { ok: true, status: answer.status, body: { entries, more: false } };
    if (entries.length >= enough) break;
  }
  return { ok: true, status: 200, body: { entries, more: true } };
}

/** The contract's error shape, as one line for a person. */
export function errorText(answer: ApiAnswer): string {
  const error = (answer.body as { error?: { code?: string; message?: string } } | undefined)?.error;
  return error ? `${answer.status} ${error.code ?? ''}: ${error.message ?? ''}` : `HTTP ${answer.status}`;
}

export async function endpoints(): Promise<Endpoints> {
  const response = await fetch('/console/endpoints', { headers: keyHeader() });
  if (!response.ok) throw new Error(errorText({ ok: false, status: response.status, body: (await response.json().catch(() => undefined)) as unknown }));
  return (await response.json()) as Endpoints;
}
