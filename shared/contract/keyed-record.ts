import * as z from '../validation/zod.js';

/**
 * A record whose keys are names the client chose. zod's record leaves out a `__proto__` key without
 * a word (writing it would replace the result's prototype), though JSON.parse and the YAML parser
 * both make it an own key: the entry would be dropped from what was asked, or the record read as
 * empty. It is refused by name instead, `keyIs` saying what such a key should be.
 */
export function keyedRecord<Key extends z.core.$ZodRecordKey, Value extends z.core.SomeType>(key: Key, value: Value, keyIs: string) {
  const refusingProtoKey = z.transform((record: unknown, ctx) => {
    if (typeof record === 'object' && record !== null && Object.hasOwn(record, '__proto__')) {
      ctx.issues.push({ code: 'custom', input: record, path: ['__proto__'], message: `is not ${keyIs}` });
    }
    return record;
  });
  return z.pipe(refusingProtoKey, z.record(key, value));
}
