import { randomUUID } from 'node:crypto';
import type { InputFile } from './input-file.js';

/**
 * A submission whose file names no id gets one here: Vigil makes a submit idempotent on its id, so
 * the SDK's retry of a submit whose answer was lost (a 504) is then the same job or pool, not a second.
 */
export function withClientChosenId(file: InputFile, key: 'jobId' | 'poolId'): InputFile {
  const data = file.data;
  if (data === null || typeof data !== 'object' || Array.isArray(data) || key in data) return file;
  const id = randomUUID();
  return { ...file, data: { [key]: id, ...data }, text: file.isYaml ? withYamlKey(file.text, key, id) : file.text };
}

/** The top-level key first in the document (after a leading `---`), where it cannot be read as part of anything else. */
function withYamlKey(text: string, key: string, id: string): string {
  const start = /^---[^\n]*\n/.exec(text);
  const at = start ? start[0].length : 0;
  return `${text.slice(0, at)}${key}: ${id}\n${text.slice(at)}`;
}
