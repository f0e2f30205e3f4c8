import type { VigilHttp } from '../sdk/vigil-http.js';

/** Pages a listing can have before the command stops following it (a cursor that never ends). */
const MAX_PAGES = 10_000;

/**
 * Every page of a paged listing (`GET …?cursor=`), its `listKey` entries joined into one answer:
 * the command shows the whole list however the server pages it.
 */
export async function allPages(http: VigilHttp, path: string, listKey: string): Promise<Record<string, unknown[]>> {
  const { body } = await http.call('GET', path);
  return { [listKey]: await entriesFrom(http, path, listKey, body) };
}

/**
 * The `listKey` entries of `first` (an answer that may end with a `nextCursor`) and of every page
 * `GET path?cursor=…` answers after it.
 */
export async function entriesFrom(http: VigilHttp, path: string, listKey: string, first: unknown): Promise<unknown[]> {
  const entries: unknown[] = [];
  let answer = first;
  let cursor: string | undefined;
  for (let page = 0; page < MAX_PAGES; page++) {
    const fields = (answer ?? {}) as Record<string, unknown>;
    const list = fields[listKey];
    if (Array.isArray(list)) entries.push(...(list as unknown[]));
    const next = typeof fields['nextCursor'] === 'string' ? fields['nextCursor'] : undefined;
    // A cursor answered with itself again would repeat the same page without end.
    if (next === undefined || next === cursor) break;
    cursor = next;
    const separator = path.includes('?') ? '&' : '?';
    answer = (await http.call('GET', `${path}${separator}cursor=${encodeURIComponent(cursor)}`)).body;
  }
  return entries;
}
