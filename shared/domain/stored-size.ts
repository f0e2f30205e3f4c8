/**
 * Sizes as DynamoDB counts them (its item-size rules), which is not JSON's count: a list of small
 * numbers takes 3 bytes an element there against 2 in JSON. Bounds on what callers send are checked
 * on both (`storedBytes`), so a payload within its bound as JSON cannot grow an item past 400 KB.
 */

/** DynamoDB's maximum item size, names and values together (400 KB). */
export const MAX_ITEM_BYTES = 400 * 1024;

const utf8 = (text: string) => Buffer.byteLength(text, 'utf8');

/**
 * Bytes of a number as DynamoDB stores it: one for the exponent, one per base-100 digit of the
 * mantissa (pairs of decimal digits aligned on the decimal point, so an even count of digits that
 * starts on an even power of ten takes one more), one more when negative. DynamoDB's documentation
 * gives the rule only as "approximately"; this is the count dynalite refuses a write past 400 KB by,
 * exact for every JavaScript number (test/unit/domain/stored-size.property.test.ts).
 */
function numberSize(value: number): number {
  if (value === 0) return 1;
  const { digits, exponent } = significantDigits(Math.abs(value));
  const pairs = Math.ceil(digits / 2) + (digits % 2 === 0 && exponent % 2 === 0 ? 1 : 0);
  return 1 + pairs + (value < 0 ? 1 : 0);
}

/** Significant decimal digits of a positive number, and the power of ten of its first one. */
function significantDigits(positive: number): { digits: number; exponent: number } {
  // Most stored numbers are whole (times in ms, versions, counts): their digits without string rewriting.
  if (Number.isSafeInteger(positive)) {
    const exponent = String(positive).length - 1;
    let whole = positive;
    while (whole % 10 === 0) whole /= 10;
    return { digits: String(whole).length, exponent };
  }
  const [mantissa = '', exponent = '0'] = positive.toExponential().split('e');
  return { digits: mantissa.replace('.', '').replace(/0+$/, '').length, exponent: Number(exponent) };
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
