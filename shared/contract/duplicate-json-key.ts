import { clipText } from './bounded-problems.js';

/**
 * The first key that one object of `json` (valid JSON text) names twice, as JSON.parse reads it, or
 * undefined. JSON.parse keeps the last value and drops the others unsaid, and the body's sender
 * meant one of them. One pass without recursion: any nesting is safe.
 */
export function duplicateJsonKey(json: string): string | undefined {
  // One entry per open object or array: the keys an object has named so far; undefined for an array.
  const open: Array<Set<string> | undefined> = [];
  let keyNext = false;
  for (let i = 0; i < json.length; i++) {
    const char = json[i];
    if (char === '"') {
      let end = i + 1;
      while (json[end] !== '"') end += json[end] === '\\' ? 2 : 1;
      const keys = open.at(-1);
      if (keyNext && keys) {
        const quoted = json.slice(i, end + 1);
        const key = quoted.includes('\\') ? (JSON.parse(quoted) as string) : quoted.slice(1, -1);
        if (keys.has(key)) return key;
        keys.add(key);
      }
      keyNext = false;
      i = end;
    } else if (char === '{') {
      open.push(new Set());
      keyNext = true;
    } else if (char === '[') {
      open.push(undefined);
      keyNext = false;
    } else if (char === '}' || char === ']') {
      open.pop();
    } else if (char === ',') {
      keyNext = open.at(-1) !== undefined;
    }
  }
  return undefined;
}

export const duplicateKeyMessage = (key: string): string =>
  `The body names '${clipText(key)}' twice in one object, and only one value can be meant. Send each field once.`;
