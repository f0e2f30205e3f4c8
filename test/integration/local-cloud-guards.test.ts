import { spawn, type ChildProcess } from 'node:child_process';
import { existsSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterEach, describe, expect, it } from 'vitest';
import { parseFlags } from '../../shared/local/cli-flags.js';
import { pollUntil } from '../support/poll.js';
import { freeBasePort, VigilProcess } from '../support/vigil-process.js';
import { rawRequest } from '../support/raw-request.js';

/**
 * Guards found by a review of `npm start` (shared/local/*): flags, a second `npm start` on the same ports
 * or data dir, restarts, the control and console routes, one huge request.
 */
const REPO_ROOT = resolve(dirname(fileURLToPath(import.meta.url)), '..', '..');

interface Spawned {
  child: ChildProcess;
  output: () => string;
  exited: Promise<{ code: number | null; signal: NodeJS.Signals | null }>;
}

const spawned: ChildProcess[] = [];
const tempDirs: string[] = [];
const vigils: VigilProcess[] = [];

afterEach(async () => {
  for (const child of spawned.splice(0)) if (child.exitCode === null && child.signalCode === null) child.kill('SIGKILL');
  for (const vigil of vigils.splice(0)) await vigil.stop();
  for (const dir of tempDirs.splice(0)) rmSync(dir, { recursive: true, force: true });
});

function tempDir(): string {
  const dir = mkdtempSync(join(tmpdir(), 'vigil-review-'));
  tempDirs.push(dir);
  return dir;
}

/** `npm start -- <args>` (`tsx shared/local/main.ts`), stdout and stderr captured together. */
function startVigil(args: string[], nodeArgs: string[] = []): Spawned {
  const child = spawn(process.execPath, [...nodeArgs, '--import', 'tsx', 'shared/local/main.ts', ...args], { cwd: REPO_ROOT, stdio: ['ignore', 'pipe', 'pipe'] });
  spawned.push(child);
  let text = '';
  child.stdout?.on('data', (chunk: Buffer) => (text += chunk.toString()));
  child.stderr?.on('data', (chunk: Buffer) => (text += chunk.toString()));
  const exited = new Promise<{ code: number | null; signal: NodeJS.Signals | null }>((done) => child.once('exit', (code, signal) => done({ code, signal })));
  return { child, output: () => text, exited };
}

async function exitWithin(run: Spawned, ms: number) {
  const timeout = new Promise<'still running'>((done) => setTimeout(() => done('still running'), ms));
  return Promise.race([run.exited, timeout]);
}

async function answersHealth(url: string): Promise<boolean> {
  try {
    const response = await fetch(`${url}/health`, { signal: AbortSignal.timeout(1_000) });
    await response.arrayBuffer();
    return response.status === 200;
  } catch {
    return false;
  }
}

describe('npm start flags', () => {
  it('--port whose last region port passes 65535 is refused as a bad flag (exit 2) before anything starts', async () => {
    // Prepare
    const dataDir = join(tempDir(), 'data');

    // Act: the gate would be on 65535, us-east-1 on 65536
    const run = startVigil(['--port', '65535', '--regions', 'us-east-1', '--data-dir', dataDir]);
    const exit = await exitWithin(run, 60_000);

    // Assess
    expect(exit, run.output()).toEqual({ code: 2, signal: null });
    expect(run.output()).toMatch(/--port/);
    expect(existsSync(dataDir), 'nothing may start (no data dir, no dynalite) on bad flags').toBe(false);
  }, 90_000);

  it('--port with an empty value is refused, not silently turned into port 0 (random ports)', () => {
    expect(() => parseFlags(['--port', ''])).toThrow(/--port/);
    expect(() => parseFlags(['--port=  '])).toThrow(/--port/);
  });
});

describe('a second npm start beside a running one', () => {
  it('on the same data dir: exits with a clear error naming the data dir, not a bare ECONNREFUSED, and the first keeps running', async () => {
    // Prepare
    const first = await VigilProcess.start({ regions: ['us-east-1'] });
    vigils.push(first);
    const port = await freeBasePort(2);

    // Act
    const second = startVigil(['--port', String(port), '--regions', 'us-east-1', '--data-dir', first.dataDir]);
    const exit = await exitWithin(second, 60_000);

    // Assess
    expect(exit).not.toBe('still running');
    expect((exit as { code: number | null }).code).not.toBe(0);
    expect(second.output()).not.toMatch(/ECONNREFUSED/);
    expect(second.output()).toMatch(/in use|another|already|lock/i);
    expect(second.output()).toContain(first.dataDir);
    expect(await answersHealth(first.endpoints.gate)).toBe(true);
  }, 150_000);

  it('on the same ports: exits with a clear error naming the port and --port, not a Node stack trace', async () => {
    // Prepare
    const first = await VigilProcess.start({ regions: ['us-east-1'] });
    vigils.push(first);
    const port = new URL(first.endpoints.gate).port;

    // Act
    const second = startVigil(['--port', port, '--regions', 'us-east-1', '--data-dir', join(tempDir(), 'data')]);
    const exit = await exitWithin(second, 60_000);

    // Assess
    expect(exit).not.toBe('still running');
    expect((exit as { code: number | null }).code).not.toBe(0);
    expect(second.output()).toContain(port);
    expect(second.output()).toMatch(/--port/);
    expect(second.output(), 'a raw stack trace is not a clear error').not.toMatch(/\n\s+at \S+ \(node:/);
  }, 150_000);
});


describe('local control routes', () => {
  it('POST /_local/faults with malformed JSON → 400 invalid_request (contract "Errors"), not internal_error', async () => {
    // Prepare
    const vigil = await VigilProcess.start({ regions: ['us-east-1'] });
    vigils.push(vigil);

    // Act
    const answer = await fetch(`${vigil.endpoints.gate}/_local/faults`, { method: 'POST', body: '{"gateDown": tru' });
    const body = (await answer.json()) as { error: { code: string } };

    // Assess
    expect(answer.status).toBe(400);
    expect(body.error.code).toBe('invalid_request');
  }, 120_000);

  it("another site's page, or one DNS-rebound to the loopback address, is refused (403) and changes nothing", async () => {
    // Prepare
    const vigil = await VigilProcess.start({ regions: ['us-east-1'] });
    vigils.push(vigil);
    const region = vigil.endpoints.regions['us-east-1'] ?? '';
    const regionHost = new URL(region).host;
    const submit = JSON.stringify({ jobId: 'job-x', timeoutSeconds: 60, workflows: [{ workflowId: 'wf-1', workerId: 'w-1' }] });

    // Act: a no-cors text/plain POST from a page of another origin, and one whose name resolved to 127.0.0.1
    const crossSite = await rawRequest(`${region}/jobs`, { method: 'POST', headers: { host: regionHost, origin: 'https://evil.example', 'content-type': 'text/plain' }, body: submit });
    const rebound = await rawRequest(`${vigil.endpoints.gate}/_local/faults`, {
      method: 'POST',
      headers: { host: `evil.example:${new URL(vigil.endpoints.gate).port}`, 'content-type': 'text/plain' },
      body: '{"gateDown": true}',
    });

    // Assess
    expect([crossSite.status, rebound.status]).toEqual([403, 403]);
    expect(JSON.parse(crossSite.body)).toMatchObject({ error: { code: 'forbidden' } });
    expect((await fetch(`${region}/jobs/job-x`)).status).toBe(404);
    expect((await fetch(`${vigil.endpoints.gate}/health`)).status).toBe(200);
  }, 120_000);

  it('one 5 MiB request through the console proxy forwarded to itself does not crash the local cloud', async () => {
    // Prepare: a 256 MiB heap stands in for the default (~4 GiB), which the same request reaches at ~1,000 hops
    // (the 64 KiB header limit allows ~3,800)
    const dataDir = join(tempDir(), 'data');
    const port = await freeBasePort(2);
    const vigil = startVigil(['--port', String(port), '--regions', 'us-east-1', '--data-dir', dataDir], ['--max-old-space-size=256']);
    const gate = `http://127.0.0.1:${port}`;
    await pollUntil(async () => (existsSync(join(dataDir, 'endpoints.json')) && (await answersHealth(gate)) ? true : undefined), {
      what: () => `Vigil to start: ${vigil.output()}`,
      timeoutMs: 60_000,
    });
    const body = join(tempDir(), 'body.txt');
    writeFileSync(body, 'x'.repeat(5 * 1024 * 1024));

    // Act: /console/api/gate/console/api/gate/…/health, 150 hops, each re-reading and re-sending the body
    const path = '/console/api/gate'.repeat(150) + '/health';
    await fetch(gate + path, { method: 'POST', body: readFileSync(body), signal: AbortSignal.timeout(30_000) }).then((r) => r.arrayBuffer()).catch(() => undefined);

    // Assess
    expect(await answersHealth(gate), `the local cloud died: ${vigil.output().slice(0, 400)}`).toBe(true);
  }, 150_000);
});
