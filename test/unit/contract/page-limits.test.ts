import { describe, expect, it } from 'vitest';
import { listJobsQuery } from '../../../shared/contract/history-requests.js';
import { DLQ_PAGE_SIZE, dlqQuery } from '../../../shared/contract/pool-requests.js';

/** A listing's `?limit=` outside what it serves is refused with advice, never quietly served as another number. */
describe('page limits', () => {
  const listings = [
    { name: 'GET /jobs', query: listJobsQuery, max: 100 },
    { name: 'GET /pools/{poolId}/dlq', query: dlqQuery, max: DLQ_PAGE_SIZE },
  ];

  it.each(listings)('$name serves every limit from 1 to its page size', ({ query, max }) => {
    for (const limit of ['1', String(max)]) expect(query.safeParse({ limit }).success).toBe(true);
  });

  it.each(listings)('$name refuses 0, its page size plus one, a fraction and a word, naming the range', ({ query, max }) => {
    for (const limit of ['0', String(max + 1), '2.5', 'ten', '']) {
      const parsed = query.safeParse({ limit });
      expect(parsed.success, `limit=${limit}`).toBe(false);
      expect(parsed.error?.issues[0]?.message).toBe(`must be a whole number from 1 to ${max}`);
    }
  });
});
