/**
 * Sizes as DynamoDB counts them (its item-size rules), which is not JSON's count: a list of small
 * numbers takes 3 bytes an element there against 2 in JSON. Bounds on what callers send are checked
 * on both (`storedBytes`), so a payload within its bound as JSON cannot grow an item past 400 KB.
 */

/** DynamoDB's maximum item size, names and values together (400 KB). */
export const MAX_ITEM_BYTES = 400 * 1024;

const utf8 = (text: string) => Buffer.byteLength(text, 'utf8');

/** Bytes of a number as DynamoDB stores it: about one byte per two significant digits, plus one. */
function numberSize(value: number): number {
  return Math.min(21, Math.ceil(Math.max(1, significantDigits(value)) / 2) + 1);
}

function significantDigits(value: number): number {
  // Most stored numbers are whole (times in ms, versions, counts): their digits without string rewriting.
  if (Number.isSafeInteger(value) && value !== 0) {
    let whole = Math.abs(value);
    while (whole % 10 === 0) whole /= 10;
    return String(whole).length;
  }
  return String(Math.abs(value)).replace(/[.\-e+]/g, '').replace(/^0+/, '').replace(/0+$/, '').length;
}

/** Size of one attribute value per the DynamoDB item-size rules (documents add 3 bytes, 1 per element). */
export function valueSize(value: unknown): number {
  if (value === null || typeof value === 'boolean') return 1;
  if (typeof value === 'string') return utf8(value);
  if (typeof value === 'number') return numberSize(value);
  if (Array.isArray(value)) return 3 + value.reduce((sum: number, element) => sum + 1 + valueSize(element), 0);
  if (value instanceof Uint8Array) return value.byteLength;
  if (typeof value === 'object') {
    return 3 + Object.entries(value).reduce((sum, [name, element]) => sum + 1 + utf8(name) + valueSize(element), 0);
  }
  return 0;
}

const sizes = new WeakMap<object, number>();

/** Item size in bytes; memoized per object, so callers must not mutate an item after measuring it. */
export function itemSize(item: Record<string, unknown>): number {
  const known = sizes.get(item);
  if (known !== undefined) return known;
  const size = Object.entries(item).reduce((sum, [name, value]) => sum + utf8(name) + valueSize(value), 0);
  sizes.set(item, size);
  return size;
}

/** The larger of a value's JSON size (what the API carries) and its size as a DynamoDB attribute (what an item holds). */
export const storedBytes = (value: unknown): number => (value === undefined ? 0 : Math.max(utf8(JSON.stringify(value)), valueSize(value)));
