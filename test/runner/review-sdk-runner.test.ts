import { spawn, type ChildProcess } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, afterEach, beforeAll, describe, expect, it, vi } from 'vitest';
import { claim, startWorkflow } from '../../shared/sdk/index.js';
import { pollUntil } from '../support/poll.js';
import { processExists, runVigil } from '../support/vigil-cli.js';

// Adversarial review of the worker SDK, the agent runner and the `vigil` command, each against a
// scripted fake Vigil (a slow, lying or refusing server) so every case is deterministic.
vi.setConfig({ testTimeout: 60_000 });

const VIGIL_BIN = fileURLToPath(new URL('../../shared/cli/bin/vigil.js', import.meta.url));

interface Seen {
  method: string;
  path: string;
  body: unknown;
  at: number;
}
type Reply = { status: number; body?: unknown; text?: string } | 'hang';
type Route = (method: string, path: string, body: unknown, seen: Seen[]) => Reply;

interface FakeVigil {
  url: string;
  seen: Seen[];
  close(): Promise<void>;
}

const servers: FakeVigil[] = [];
const stray: Array<() => void> = [];
afterEach(async () => {
  for (const cleanup of stray.splice(0)) cleanup();
  await Promise.all(servers.splice(0).map((server) => server.close()));
});

let scratch: string;
beforeAll(() => (scratch = mkdtempSync(join(tmpdir(), 'vigil-review-'))));
afterAll(() => rmSync(scratch, { recursive: true, force: true }));

function readBody(request: IncomingMessage): Promise<string> {
  return new Promise((resolve) => {
    let text = '';
    request.on('data', (chunk: Buffer) => (text += chunk.toString()));
    request.on('end', () => resolve(text));
  });
}

async function fakeVigil(route: Route): Promise<FakeVigil> {
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
    const entry = { method: request.method ?? 'GET', path: request.url ?? '/', body, at: Date.now() };
    seen.push(entry);
    const reply = route(entry.method, entry.path, body, seen);
    if (reply === 'hang') {
      hanging.push(response);
      return;
    }
    response.statusCode = reply.status;
    if (reply.text !== undefined) response.end(reply.text);
    else if (reply.body === undefined) response.end();
    else {
      response.setHeader('content-type', 'application/json');
      response.end(JSON.stringify(reply.body));
    }
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const fake: FakeVigil = {
    url: `http://127.0.0.1:${(server.address() as AddressInfo).port}`,
    seen,
    close: () =>
      new Promise<void>((resolve) => {
        for (const response of hanging) response.destroy();
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
  servers.push(fake);
  return fake;
}

const error = (status: number, code: string, message: string) => ({ status, body: { error: { code, message } } });
const iso = (ms: number) => new Date(ms).toISOString();
const count = (fake: FakeVigil, method: string, suffix: string) => fake.seen.filter((s) => s.method === method && s.path.endsWith(suffix)).length;

/** `vigil ARGS…` as a process this test can signal. */
function startVigil(args: string[]): { child: ChildProcess; done: Promise<{ code: number | null; signal: NodeJS.Signals | null; transcript: string }> } {
  const child = spawn(process.execPath, [VIGIL_BIN, ...args], { env: { ...process.env, VIGIL_ENDPOINT: '' }, stdio: ['ignore', 'pipe', 'pipe'] });
  let out = '';
  child.stdout?.on('data', (chunk: Buffer) => (out += chunk.toString()));
  child.stderr?.on('data', (chunk: Buffer) => (out += chunk.toString()));
  const done = new Promise<{ code: number | null; signal: NodeJS.Signals | null; transcript: string }>((resolve) =>
    // 'exit', not 'close': an orphaned grandchild may hold the inherited stdout/stderr pipes open.
    child.once('exit', (code, signal) => resolve({ code, signal, transcript: `vigil ${args.join(' ')} → ${code ?? signal}\n${out}` })),
  );
  stray.push(() => {
    if (child.exitCode === null && child.signalCode === null) child.kill('SIGKILL');
  });
  return { child, done };
}

/** Waits for the pid a child wrote, and makes sure its group is killed after the test whatever happens. */
async function childPid(file: string): Promise<number> {
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
}

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

/** A claim answer for a pool with no template (the runner is given `-- CMD`). */
const claimed = (itemId: string, deadlineAtMs: number | null) => ({
  status: 200,
  body: { itemId, attempt: 1, token: `tok-${itemId}`, input: { n: 1 }, deadlineAt: deadlineAtMs === null ? null : iso(deadlineAtMs), commands: [], checkpointIntervalSeconds: 300, lastCheckpoint: null },
});

describe('retries never repeat a call that is not idempotent', () => {
  it('claim() sends one claim: a claim retried after an ambiguous 504 takes a second item and strands the first', async () => {
    // Prepare: the first claim is applied (item-1 is now running under this agent) but its answer is lost (API Gateway 504)
    const fake = await fakeVigil((method, path, _body, seen) => {
      if (method === 'POST' && path.endsWith('/claims')) {
        const n = seen.filter((s) => s.path.endsWith('/claims')).length;
        return n === 1 ? { status: 504, text: '{"message": "Endpoint request timed out"}' } : claimed(`item-${n}`, Date.now() + 60_000);
      }
      return { status: 200, body: { action: 'continue', deadlineAt: null } };
    });
    // Act
    const attempt = await claim({ endpoint: fake.url, retry: { baseDelayMs: 1, maxDelayMs: 5 }, heartbeatIntervalMs: 60_000 }, 'pool-1', 'agent-a').catch(() => undefined);
    attempt?.stop();
    // Assess: a claim is not idempotent (each one takes a new item), so it must not be sent twice blindly
    expect(count(fake, 'POST', '/claims')).toBe(1);
  });

  it('vigil submit of a job without a jobId, retried after a 504, is not submitted as a second job', async () => {
    // Prepare
    const fake = await fakeVigil((method, path, body, seen) => {
      if (method !== 'POST' || path !== '/jobs') return error(404, 'route_not_found', 'no such route');
      const n = seen.filter((s) => s.path === '/jobs').length;
      if (n === 1) return { status: 504, text: '{"message": "Endpoint request timed out"}' };
      const jobId = (body as { jobId?: string }).jobId ?? `job-${n}`;
      return { status: 201, body: { jobId, status: 'RUNNING', strategy: 'local_authority', fenceToken: 1, deadlineAt: iso(Date.now() + 300_000), workflows: [{ workflowId: 'wf-1', workerId: 'w', token: 't' }] } };
    });
    const file = join(scratch, 'job.json');
    await import('node:fs').then((fs) => fs.writeFileSync(file, JSON.stringify({ timeoutSeconds: 300, workflows: [{ workflowId: 'wf-1', workerId: 'w' }] })));
    // Act
    const result = await runVigil(['submit', file, '--endpoint', fake.url]);
    // Assess: either sent once, or every repeat names the same jobId so Vigil deduplicates it
    const sent = fake.seen.filter((s) => s.path === '/jobs').map((s) => (s.body as { jobId?: string }).jobId);
    const idempotent = sent.length === 1 || (sent[0] !== undefined && sent.every((jobId) => jobId === sent[0]));
    expect(idempotent, `${result.transcript}\nPOST /jobs sent ${sent.length} times with jobIds ${JSON.stringify(sent)}`).toBe(true);
  });
});

describe('the worker SDK', () => {
  it('onCheckpointRequested fires again for a new checkpoint request after one went unanswered', async () => {
    // Prepare: Vigil opens a request, it lapses (missed), then Vigil opens the next one
    const answers = ['checkpoint', 'continue', 'checkpoint'];
    const fake = await fakeVigil((method, path) => {
      if (path.endsWith('/claims')) return claimed('item-1', Date.now() + 60_000);
      if (path.endsWith('/heartbeat')) return { status: 200, body: { action: answers.shift() ?? 'continue', deadlineAt: iso(Date.now() + 60_000) } };
      return { status: 200, body: {} };
    });
    const attempt = await claim({ endpoint: fake.url, heartbeatIntervalMs: 60_000 }, 'pool-1', 'agent-a');
    if (!attempt) throw new Error('nothing claimed');
    let requests = 0;
    attempt.onCheckpointRequested(() => requests++);
    // Act
    await attempt.heartbeat();
    await attempt.heartbeat();
    await attempt.heartbeat();
    attempt.stop();
    // Assess: two requests were opened, so the agent must hear of both (else every later one is missed and it stalls)
    expect(requests).toBe(2);
  });

  it('a startWorkflow that Vigil refuses (403) leaves no heartbeat running behind', async () => {
    // Prepare
    const fake = await fakeVigil(() => error(403, 'invalid_token', 'The token is not valid for this workflow.'));
    // Act
    const failure = await startWorkflow({ endpoint: fake.url, jobId: 'job-1', workflowId: 'wf-1', workerId: 'w', token: 'bad', stuckThresholdSeconds: 1 }).catch((e: unknown) => e);
    const refusedAt = Date.now();
    await sleep(1_200);
    // Assess: the caller got an error and no handle; nothing may keep calling Vigil with the refused token
    expect(failure).toBeInstanceOf(Error);
    const after = fake.seen.filter((s) => s.path.endsWith('/progress') && s.at > refusedAt).length;
    expect(after, 'progress calls sent after startWorkflow rejected').toBe(0);
  });
});

describe('vigil run: every agent learns to stop, and exits by the contract', () => {
  it('a 409 stale_attempt stops the child, exits 3 (not 2) and keeps claiming', async () => {
    // Prepare: the attempt was superseded (force-resolved, item claimed again by another agent)
    const fake = await fakeVigil((method, path, _body, seen) => {
      if (path.endsWith('/claims')) return seen.filter((s) => s.path.endsWith('/claims')).length === 1 ? claimed('item-1', Date.now() + 60_000) : { status: 204 };
      return error(409, 'stale_attempt', 'Attempt 1 of item-1 is over; attempt 2 holds it.');
    });
    // Act
    const result = await runVigil(['run', '--pool', 'pool-1', '--agent', 'agent-a', '--endpoint', fake.url, '--heartbeat', '0.2', '--grace', '1', '--', 'sh', '-c', 'sleep 30'], { timeoutMs: 45_000 });
    // Assess
    expect(count(fake, 'POST', '/terminated'), result.transcript).toBe(1);
    expect(result.code, result.transcript).toBe(3);
    expect(count(fake, 'POST', '/claims'), `it must go on to claim the next item\n${result.transcript}`).toBe(2);
  });

  it('vigil run --job: a child that finishes as the job ends (complete → 409 job_finished) exits 3, not 2', async () => {
    // Prepare: the job timed out between the last heartbeat and the child's exit
    const fake = await fakeVigil((method, path) => {
      if (method === 'GET') return error(403, 'forbidden', 'client route');
      if (path.endsWith('/progress')) return { status: 200, body: { status: 'RUNNING', cancel: false, deadlineAt: iso(Date.now() + 60_000) } };
      if (path.endsWith('/complete')) return error(409, 'job_finished', "Job 'job-1' is TIMED_OUT; it takes no more outcomes.");
      return error(404, 'route_not_found', 'no');
    });
    // Act
    const result = await runVigil(['run', '--job', 'job-1', '--workflow', 'wf-1', '--worker', 'w', '--token', 't', '--endpoint', fake.url, '--', 'sh', '-c', 'sleep 0.5']);
    // Assess
    expect(count(fake, 'POST', '/complete'), result.transcript).toBe(1);
    expect(result.code, result.transcript).toBe(3);
  });

  it('a Vigil that hangs does not postpone the SIGKILL past the grace period after the deadline', async () => {
    // Prepare: the claim says the deadline is 2 s away; after it Vigil accepts connections but never answers
    let claimAt = 0;
    const fake = await fakeVigil((method, path) => {
      if (path.endsWith('/claims')) {
        claimAt = Date.now();
        return claimed('item-1', claimAt + 2_000);
      }
      return 'hang';
    });
    const pidFile = join(scratch, 'hang.pid');
    // Act
    const runner = startVigil(['run', '--pool', 'pool-1', '--agent', 'agent-a', '--once', '--endpoint', fake.url, '--heartbeat', '1', '--grace', '1', '--', 'sh', '-c', `trap '' TERM; echo $$ > ${pidFile}; while :; do sleep 0.1; done`]);
    const pid = await childPid(pidFile);
    // deadline (2 s) + grace (1 s) + 3 s for SIGKILL and polling
    await sleep(Math.max(0, claimAt + 6_000 - Date.now()));
    // Assess: the runner enforces the deadlines it learned even when Vigil does not answer
    expect(processExists(pid), `child still alive ${Date.now() - claimAt} ms after the claim (deadline +2 s, grace 1 s)`).toBe(false);
    runner.child.kill('SIGKILL');
  });

  it('a second Ctrl-C does not leave a child that ignores SIGTERM running', async () => {
    // Prepare
    const fake = await fakeVigil((method, path) => {
      if (method === 'GET') return error(403, 'forbidden', 'client route');
      if (path.endsWith('/progress')) return { status: 200, body: { status: 'RUNNING', cancel: false, deadlineAt: iso(Date.now() + 300_000) } };
      return { status: 200, body: { jobId: 'job-1', workflowId: 'wf-1', state: 'failed', jobStatus: 'FAILED' } };
    });
    const pidFile = join(scratch, 'ctrl-c.pid');
    const runner = startVigil(['run', '--job', 'job-1', '--workflow', 'wf-1', '--worker', 'w', '--token', 't', '--endpoint', fake.url, '--grace', '2', '--', 'sh', '-c', `trap '' TERM INT; echo $$ > ${pidFile}; while :; do sleep 0.1; done`]);
    const pid = await childPid(pidFile);
    // Act: the operator presses Ctrl-C, and again
    runner.child.kill('SIGINT');
    await sleep(300);
    runner.child.kill('SIGINT');
    const result = await Promise.race([runner.done, sleep(15_000).then(() => undefined)]);
    // Assess: once the runner is gone, so is its child's group
    expect(result, 'the runner did not exit').toBeDefined();
    await sleep(1_000);
    expect(processExists(pid), `child left running after the runner exited\n${result?.transcript}`).toBe(false);
  });
});

describe('vigil: bad input gets a clear error', () => {
  it('status against an endpoint that answers an unexpected shape (the gate, without --gate) is exit 2 with a message, not exit 1 and a stack', async () => {
    // Prepare: a gate's job answer, asked without --gate
    const fake = await fakeVigil(() => ({ status: 200, body: { jobId: 'job-1', status: 'RUNNING', globallyTimedOut: false, datacenters: { 'us-east-1': { status: 'running', lastProgressAt: iso(Date.now()), fenceToken: 1 } } } }));
    // Act
    const result = await runVigil(['status', 'job-1', '--endpoint', fake.url]);
    // Assess: exit 1 means "the job failed", which is not what happened
    expect(result.code, result.transcript).toBe(2);
    expect(result.stderr, result.transcript).not.toMatch(/^\s+at /m);
  });
});
