import { DEFAULT_LIST_LIMIT, type ListJobsQuery } from '../../contract/history-requests.js';
import { DEFAULT_TENANT } from '../../domain/tenant.js';
import type { HistoryStore } from '../../ports/history-store.js';
import type { PageCursors } from '../page-cursors.js';
import { listingView } from './history-views.js';

/**
 * `GET /jobs`: the caller's tenant's jobs, newest first, one page at a time. Without a history store
 * the list is empty. The list's days are shared by every tenant, so the store's position (often
 * another tenant's row) reaches the caller only sealed, for this tenant's list with this filter alone.
 */
export async function listJobs(deps: { history?: HistoryStore | undefined; cursors: PageCursors }, query: ListJobsQuery, tenant: string = DEFAULT_TENANT) {
  const { history, cursors } = deps;
  if (!history) return { jobs: [] };
  // The position is one of the filter's listing: with another filter it would skip that one's newer jobs.
  const scope = ['GET /jobs', tenant, query.status ?? ''];
  const page = await history.listJobs({
    tenant,
    limit: query.limit !== undefined ? Number(query.limit) : DEFAULT_LIST_LIMIT,
    ...(query.status !== undefined ? { status: query.status } : {}),
    ...(query.cursor !== undefined ? { cursor: await cursors.open(query.cursor, scope) } : {}),
  });
  return { jobs: page.jobs.map(listingView), ...(page.nextCursor !== undefined ? { nextCursor: cursors.seal(page.nextCursor, scope) } : {}) };
}
