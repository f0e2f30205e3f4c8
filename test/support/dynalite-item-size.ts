import { createRequire } from 'node:module';

const dynalite = createRequire(import.meta.url)('dynalite/db/index.js') as { itemSize(item: unknown): number };

/** A stored value as DynamoDB's wire format has it (the document client's marshalling of plain JSON). */
function attributeValue(value: unknown): unknown {
  if (value === null) return { NULL: true };
  if (typeof value === 'string') return { S: value };
  if (typeof value === 'number') return { N: String(value) };
  if (typeof value === 'boolean') return { BOOL: value };
  if (Array.isArray(value)) return { L: value.map(attributeValue) };
  return { M: attributes(value as Record<string, unknown>) };
}

const attributes = (item: Record<string, unknown>) =>
  Object.fromEntries(Object.entries(item).flatMap(([name, value]) => (value === undefined ? [] : [[name, attributeValue(value)]])));

/** dynalite's own measure of a plain item, the one it refuses a write past 400 KB by (its `validations/putItem.js`). */
export const dynaliteItemSize = (item: Record<string, unknown>): number => dynalite.itemSize(attributes(item));
