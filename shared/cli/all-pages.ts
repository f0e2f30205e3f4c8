import type { VigilHttp } from '../sdk/vigil-http.js';

/** Pages a listing can have before the command stops following it (a cursor that never ends). */
const MAX_PAGES = 10_000;

/**
 * Every page of a paged listing (`GET …?cursor=`), its `listKey` entries joined into one answer:
 * the command shows the whole list however the server pages it.
 */
export async function allPages(http: VigilHttp, path: string, listKey: string): Promise<Record<string, unknown[]>> {
  const entries: unknown[] = [];
  let cursor: string | undefined;
  for (let page = 0; page < MAX_PAGES; page++) {
    const separator = path.includes('?') ? '&' : '?';
    const { body } = await http.call('GET', cursor === undefined ? path : `${path}${separator}cursor=${encodeURIComponent(cursor)}`);
    const answer = (body ?? {}) as Record<string, unknown>;
    const list = answer[listKey];
    if (Array.isArray(list)) entries.push(...(list as unknown[]));
    const next = typeof answer['nextCursor'] === 'string' ? answer['nextCursor'] : undefined;
    // A cursor answered with itself again would repeat the same page without end.
    if (next === undefined || next === cursor) break;
    cursor = next;
  }
  return { [listKey]: entries };
}
