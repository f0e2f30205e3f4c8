/**
 * Runs `run` over `items`, `size` at a time. One item's failure does not stop the others (a sweep
 * must still fire every other overdue wake-up); the failures are thrown together at the end.
 */
export async function inBatches<T>(items: readonly T[], size: number, run: (item: T) => Promise<void>): Promise<void> {
  const failures: unknown[] = [];
  for (let start = 0; start < items.length; start += size) {
    const results = await Promise.allSettled(items.slice(start, start + size).map(run));
    for (const result of results) if (result.status === 'rejected') failures.push(result.reason);
  }
  if (failures.length === 1) throw failures[0];
  if (failures.length > 1) throw new AggregateError(failures, `${failures.length} of ${items.length} items failed: ${failures.map(String).join('; ')}`);
}
