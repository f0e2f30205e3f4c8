import { existsSync } from 'node:fs';
import { fileURLToPath } from 'node:url';

export const repoRoot = fileURLToPath(new URL('../../', import.meta.url));

/** Absolute path of a handler entry given relative to the repository root (`functions/api/get-job.ts`). */
export function entryPath(relativeEntry: string): string {
  const absolute = fileURLToPath(new URL(`../../${relativeEntry}`, import.meta.url));
  if (!existsSync(absolute)) {
    throw new Error(`Lambda entry ${relativeEntry} does not exist; write the handler (export 'handler') before synthesizing.`);
  }
  return absolute;
}
