import { spawn, type ChildProcess } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { createServer, type IncomingHttpHeaders, type IncomingMessage, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, afterEach, beforeAll } from 'vitest';
import { pollUntil } from './poll.js';
import { vigilCommand } from './vigil-cli.js';

/**
 * A scripted fake Vigil on loopback (a slow, lying or refusing server), the `vigil` command as a
 * process a test can signal, and the pids its children write: each case is then deterministic.
 * `useFakeVigil()` in a describe closes every server and kills every stray process after each test.
 */
export interface Seen {
  method: string;
  path: string;
  body: unknown;
  at: number;
  headers: IncomingHttpHeaders;
}
/** An answer, sent `delayMs` late when given; or none at all. */
export type Reply = { status: number; body?: unknown; text?: string; delayMs?: number } | 'hang';
export type Route = (method: string, path: string, body: unknown, seen: Seen[]) => Reply;

export interface FakeVigil {
  url: string;
  seen: Seen[];
  close(): Promise<void>;
}

export interface FakeVigilScope {
  /** A scratch folder for this file's tests. */
  scratch(): string;
  fakeVigil(route: Route): Promise<FakeVigil>;
  /** `env`: added to the command's environment. */
  startVigil(args: string[], env?: Record<string, string>): { child: ChildProcess; done: Promise<{ code: number | null; signal: NodeJS.Signals | null; transcript: string }> };
  childPid(file: string): Promise<number>;
}

export function useFakeVigil(): FakeVigilScope {
  const servers: FakeVigil[] = [];
  const stray: Array<() => void> = [];
  let scratch = '';
  beforeAll(() => void (scratch = mkdtempSync(join(tmpdir(), 'vigil-fake-'))));
  afterAll(() => rmSync(scratch, { recursive: true, force: true }));
  afterEach(async () => {
    for (const cleanup of stray.splice(0)) cleanup();
    await Promise.all(servers.splice(0).map((server) => server.close()));
  });
  return {
    scratch: () => scratch,
    fakeVigil: async (route) => {
      const fake = await serve(route);
      servers.push(fake);
      return fake;
    },
    startVigil: (args, env) => {
      const started = startVigil(args, env);
      stray.push(() => {
        if (started.child.exitCode === null && started.child.signalCode === null) started.child.kill('SIGKILL');
      });
      return started;
    },
    childPid: async (file) => {
      const pid = await pollUntil(
        async () => {
          try {
            return Number(readFileSync(file, 'utf8').trim()) || undefined;
          } catch {
            return undefined;
          }
        },
        { what: `a pid in ${file}`, timeoutMs: 30_000, intervalMs: 50 },
      );
      stray.push(() => {
        try {
          process.kill(-pid, 'SIGKILL');
        } catch {
          // gone
        }
      });
      return pid;
    },
  };
}

function readBody(request: IncomingMessage): Promise<string> {
  return new Promise((resolve) => {
    let text = '';
    request.on('data', (chunk: Buffer) => (text += chunk.toString()));
    request.on('end', () => resolve(text));
  });
}

async function serve(route: Route): Promise<FakeVigil> {
  const seen: Seen[] = [];
  const hanging: ServerResponse[] = [];
  const server = createServer(async (request, response) => {
    const text = await readBody(request);
    let body: unknown;
    try {
      body = text === '' ? undefined : JSON.parse(text);
    } catch {
      body = text;
    }
    const entry = { method: request.method ?? 'GET', path: request.url ?? '/', body, at: Date.now(), headers: request.headers };
    seen.push(entry);
    const reply = route(entry.method, entry.path, body, seen);
    if (reply === 'hang') {
      hanging.push(response);
      return;
    }
    if (reply.delayMs !== undefined) await new Promise((resolve) => setTimeout(resolve, reply.delayMs));
    response.statusCode = reply.status;
    if (reply.text !== undefined) response.end(reply.text);
    else if (reply.body === undefined) response.end();
    else {
      response.setHeader('content-type', 'application/json');
      response.end(JSON.stringify(reply.body));
    }
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return {
    url: `http://127.0.0.1:${(server.address() as AddressInfo).port}`,
    seen,
    close: () =>
      new Promise<void>((resolve) => {
        for (const response of hanging) response.destroy();
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}

/** `vigil ARGS…` as a process a test can signal. */
function startVigil(args: string[], env: Record<string, string> = {}) {
  const command = vigilCommand(args);
  const child = spawn(command.file, command.args, { env: { ...process.env, VIGIL_ENDPOINT: '', ...command.env, ...env }, stdio: ['ignore', 'pipe', 'pipe'] });
  let out = '';
  child.stdout?.on('data', (chunk: Buffer) => (out += chunk.toString()));
  child.stderr?.on('data', (chunk: Buffer) => (out += chunk.toString()));
  const done = new Promise<{ code: number | null; signal: NodeJS.Signals | null; transcript: string }>((resolve) =>
    // 'exit', not 'close': an orphaned grandchild may hold the inherited stdout/stderr pipes open.
    child.once('exit', (code, signal) => resolve({ code, signal, transcript: `vigil ${args.join(' ')} → ${code ?? signal}\n${out}` })),
  );
  return { child, done };
}

export const errorReply = (status: number, code: string, message: string) => ({ status, body: { error: { code, message } } });
export const iso = (ms: number) => new Date(ms).toISOString();
export const countCalls = (fake: FakeVigil, method: string, suffix: string) => fake.seen.filter((s) => s.method === method && s.path.endsWith(suffix)).length;

/** A claim answer for a pool with no template (the runner is given `-- CMD`). */
export const claimedReply = (itemId: string, deadlineAtMs: number | null) => ({
  status: 200,
  body: { itemId, attempt: 1, token: `tok-${itemId}`, input: { n: 1 }, deadlineAt: deadlineAtMs === null ? null : iso(deadlineAtMs), commands: [], checkpointIntervalSeconds: 300, lastCheckpoint: null },
});
