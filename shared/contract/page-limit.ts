import * as z from '../validation/zod.js';

/** A listing's `?limit=`: a whole number from 1 to `max`, refused (400) rather than quietly clamped. */
export function pageLimit(max: number) {
  const advice = `must be a whole number from 1 to ${max}`;
  return z.string().check(z.regex(new RegExp(`^[0-9]{1,${String(max).length}}$`), advice), z.refine((text) => Number(text) >= 1 && Number(text) <= max, advice));
}
