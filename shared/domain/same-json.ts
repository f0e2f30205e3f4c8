/** JSON objects with their keys in one order, at every depth; arrays keep theirs. */
export function withSortedKeys(value: unknown): unknown {
  if (Array.isArray(value)) return value.map(withSortedKeys);
  if (value === null || typeof value !== 'object') return value;
  return Object.fromEntries(Object.keys(value).sort().map((key) => [key, withSortedKeys((value as Record<string, unknown>)[key])]));
}

/** The same JSON value, whatever the order of its objects' keys. */
export const sameJson = (a: unknown, b: unknown): boolean => JSON.stringify(withSortedKeys(a)) === JSON.stringify(withSortedKeys(b));
