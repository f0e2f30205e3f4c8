import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it, vi } from 'vitest';
import { chromiumAvailable } from '../browser/chromium.js';
import type { BenchChild } from './bench-child.js';
import { benchConsole } from './console-render.js';

// A local cloud in a child process and a headless browser.
vi.setConfig({ testTimeout: 90_000 });

/**
 * `npm run bench -- --only console` printed the local cloud's INFO logs ("job submitted", one JSON
 * line per job) among its tables: its cloud ran in the bench's own process at the default log level.
 * The other sections keep their clouds quiet (a child process, logs silenced); this one does too.
 */
describe.skipIf(!chromiumAvailable())("the bench's operator console section", () => {
  const root = mkdtempSync(join(tmpdir(), 'vigil-bench-console-'));
  const children: BenchChild[] = [];
  afterAll(async () => {
    for (const child of children) await child.stop();
    rmSync(root, { recursive: true, force: true });
  });

  it("writes nothing to the bench's output but its tables: no log line of the local cloud", async () => {
    // Prepare
    const written: string[] = [];
    const stdout = vi.spyOn(process.stdout, 'write').mockImplementation((chunk: string | Uint8Array) => (written.push(String(chunk)), true));
    // Act
    let tables: string;
    try {
      tables = await benchConsole(root, children, { jobs: 3, runs: 1 });
    } finally {
      stdout.mockRestore();
    }
    // Assess
    expect(written.join('')).toBe('');
    expect(tables).toContain('console jobs list, 3 jobs shown');
  });
});
