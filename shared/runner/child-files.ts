import { mkdtempSync, readFileSync, renameSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

/**
 * How a child without the SDK talks to the runner: plain files named in its environment.
 * - `VIGIL_CHECKPOINT_REQUEST_FILE` appears when Vigil asks for a checkpoint;
 * - the child writes JSON `{"state": …, "progress": 0.4}` to `VIGIL_CHECKPOINT_FILE` (write a temp
 *   file, then `mv`, so the runner never reads half a file): the runner sends it and removes the request;
 * - it may write its (partial) result as JSON to `VIGIL_RESULT_FILE`;
 * - a job's workflow writes a progress fraction, or `{"progress": 0.5, "step": "…"}`, to `VIGIL_PROGRESS_FILE`;
 * - and asks for a deadline extension (AD-26) by writing its progress, or `{"currentProgress": 0.5,
 *   "reason": "gc_pause"}`, to `VIGIL_EXTENSION_REQUEST_FILE`: the runner asks Vigil and writes the
 *   answer to `VIGIL_EXTENSION_ANSWER_FILE`.
 */
export class ChildFiles {
  readonly dir = mkdtempSync(join(tmpdir(), 'vigil-run-'));
  readonly checkpointRequest = join(this.dir, 'checkpoint-requested');
  readonly checkpoint = join(this.dir, 'checkpoint.json');
  readonly result = join(this.dir, 'result.json');
  readonly progress = join(this.dir, 'progress');
  readonly extensionRequest = join(this.dir, 'extension-request.json');
  readonly extensionAnswer = join(this.dir, 'extension-answer.json');
  private seen = new Map<string, number>();

  env(): Record<string, string> {
    return {
      VIGIL_CHECKPOINT_REQUEST_FILE: this.checkpointRequest,
      VIGIL_CHECKPOINT_FILE: this.checkpoint,
      VIGIL_RESULT_FILE: this.result,
      VIGIL_PROGRESS_FILE: this.progress,
      VIGIL_EXTENSION_REQUEST_FILE: this.extensionRequest,
      VIGIL_EXTENSION_ANSWER_FILE: this.extensionAnswer,
    };
  }

  requestCheckpoint(): void {
    writeFileSync(this.checkpointRequest, `${new Date().toISOString()}\n`);
  }

  clearCheckpointRequest(): void {
    rmSync(this.checkpointRequest, { force: true });
  }

  /** The file's content as JSON when it changed since the last call; undefined otherwise or when unreadable. */
  changed(file: string): unknown {
    let mtimeMs: number;
    try {
      mtimeMs = statSync(file).mtimeMs;
    } catch {
      return undefined;
    }
    if (this.seen.get(file) === mtimeMs) return undefined;
    const value = this.read(file);
    if (value !== undefined) this.seen.set(file, mtimeMs);
    return value;
  }

  /** The next `changed` reads `file` again: what was read of it did not get through. */
  unread(file: string): void {
    this.seen.delete(file);
  }

  /** Written whole: to a temp file, then renamed into place, so the child never reads half of it. */
  write(file: string, value: unknown): void {
    writeFileSync(`${file}.tmp`, `${JSON.stringify(value)}\n`);
    renameSync(`${file}.tmp`, file);
  }

  read(file: string): unknown {
    try {
      return JSON.parse(readFileSync(file, 'utf8'));
    } catch {
      return undefined;
    }
  }

  remove(): void {
    rmSync(this.dir, { recursive: true, force: true });
  }
}

/**
 * `use` with a child's files of its own, removed after. Made first, before anything is claimed or
 * reported: a TMPDIR that is no folder, or a full disk, fails the runner holding nothing.
 */
export async function withChildFiles<T>(use: (files: ChildFiles) => Promise<T>): Promise<T> {
  const files = new ChildFiles();
  try {
    return await use(files);
  } finally {
    files.remove();
  }
}
