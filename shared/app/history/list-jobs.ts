import { DEFAULT_LIST_LIMIT, type ListJobsQuery } from '../../contract/history-requests.js';
import { DEFAULT_TENANT } from '../../domain/tenant.js';
import type { HistoryStore } from '../../ports/history-store.js';
import { listingView } from './history-views.js';

/** `GET /jobs`: the caller's tenant's jobs, newest first, one page at a time. Without a history store the list is empty. */
export async function listJobs(history: HistoryStore | undefined, query: ListJobsQuery, tenant: string = DEFAULT_TENANT) {
  if (!history) return { jobs: [] };
  const page = await history.listJobs({
    tenant,
    limit: query.limit !== undefined ? Number(query.limit) : DEFAULT_LIST_LIMIT,
    ...(query.status !== undefined ? { status: query.status } : {}),
    ...(query.cursor !== undefined ? { cursor: query.cursor } : {}),
  });
  return { jobs: page.jobs.map(listingView), ...(page.nextCursor !== undefined ? { nextCursor: page.nextCursor } : {}) };
}
