/** p50 / p99 / max of a sample (nearest-rank percentiles), in the sample's unit. */
export interface Summary {
  count: number;
  p50: number;
  p99: number;
  max: number;
}

export function summarize(values: readonly number[]): Summary {
  const sorted = [...values].sort((a, b) => a - b);
  const at = (p: number) => sorted[Math.max(0, Math.ceil((p / 100) * sorted.length) - 1)] ?? Number.NaN;
  return { count: sorted.length, p50: at(50), p99: at(99), max: sorted[sorted.length - 1] ?? Number.NaN };
}

/** Runs `task` for every item with at most `concurrency` in flight. */
export async function inParallel<T>(items: readonly T[], concurrency: number, task: (item: T, index: number) => Promise<void>): Promise<void> {
  let next = 0;
  const lane = async () => {
    for (let index = next++; index < items.length; index = next++) await task(items[index] as T, index);
  };
  await Promise.all(Array.from({ length: Math.min(concurrency, items.length) }, lane));
}
