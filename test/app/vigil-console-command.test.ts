import { spawn } from 'node:child_process';
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, describe, expect, it } from 'vitest';
import { consoleTargets } from '../../shared/cli/commands/console.js';
import { runVigil } from '../support/vigil-cli.js';

const VIGIL_BIN = fileURLToPath(new URL('../../shared/cli/bin/vigil.js', import.meta.url));
const dirs: string[] = [];
afterAll(() => dirs.forEach((dir) => rmSync(dir, { recursive: true, force: true })));

describe('vigil console', () => {
  it('serves the console for the listeners of .vigil/endpoints.json until SIGTERM, then exits 0', async () => {
    // Prepare: a local cloud's endpoints file (the console only reads it; nothing is called here).
    const cwd = mkdtempSync(join(tmpdir(), 'vigil-console-cli-'));
    dirs.push(cwd);
    mkdirSync(join(cwd, '.vigil'));
    writeFileSync(join(cwd, '.vigil', 'endpoints.json'), JSON.stringify({ gate: 'http://127.0.0.1:1', regions: { 'us-east-1': 'http://127.0.0.1:2' } }));
    const child = spawn(process.execPath, [VIGIL_BIN, 'console', '--port', '0'], { cwd, env: { ...process.env, VIGIL_ENDPOINT: '' }, stdio: ['ignore', 'pipe', 'pipe'] });
    const exited = new Promise<number | null>((resolve) => child.once('close', resolve));
    const killer = setTimeout(() => child.kill('SIGKILL'), 30_000);
    try {
      // Act
      const [url, key] = await new Promise<[string, string]>((resolve, reject) => {
        let out = '';
        child.stdout.on('data', (chunk: Buffer) => {
          out += chunk.toString();
          const found = /console (http:\/\/127\.0\.0\.1:\d+)\/\?key=([A-Za-z0-9_-]+)\n/.exec(out);
          if (found?.[1] && found[2]) resolve([found[1], found[2]]);
        });
        child.once('close', (code) => reject(new Error(`vigil console exited ${code} before listening: ${out}`)));
      });
      // Assess
      const headers = { 'x-vigil-console-key': key };
      expect((await fetch(`${url}/console/endpoints`)).status).toBe(403);
      expect(await (await fetch(`${url}/console/endpoints`, { headers })).json()).toEqual({ gate: true, regions: ['us-east-1'], faults: false });
      expect((await fetch(`${url}/console/api/us-east-1/jobs`, { headers })).status).toBe(502);
      child.kill('SIGTERM');
      expect(await exited).toBe(0);
    } finally {
      clearTimeout(killer);
    }
  }, 40_000);

  it('a deployed API is named by its region; a bad URL or port is exit 2 with what to fix', async () => {
    expect(consoleTargets({ endpoint: 'https://abc.execute-api.eu-west-1.amazonaws.com/', 'gate-endpoint': 'https://def.execute-api.us-east-1.amazonaws.com' })).toEqual({
      gate: 'https://def.execute-api.us-east-1.amazonaws.com',
      regions: { 'eu-west-1': 'https://abc.execute-api.eu-west-1.amazonaws.com' },
    });
    const badUrl = await runVigil(['console', '--endpoint', 'not a url', '--port', '0']);
    expect(badUrl.code, badUrl.transcript).toBe(2);
    expect(badUrl.stderr).toContain("--endpoint 'not a url' is not a URL");
    const badPort = await runVigil(['console', '--endpoint', 'http://127.0.0.1:9', '--port', 'x']);
    expect(badPort.code, badPort.transcript).toBe(2);
    expect(badPort.stderr).toContain('--port must be a whole number');
  }, 40_000);
});
