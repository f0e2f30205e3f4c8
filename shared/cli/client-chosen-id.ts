import { randomUUID } from 'node:crypto';
import { parseDocument } from 'yaml';
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

/** The key added to the document's top-level map, in whatever style it is written (block or `{…}`), comments kept. */
function withYamlKey(text: string, key: string, id: string): string {
  const document = parseDocument(text);
  document.set(key, id);
  return document.toString();
}
