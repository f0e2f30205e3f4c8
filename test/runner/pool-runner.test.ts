import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { randomUUID } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { useVigilProcess } from '../e2e/e2e-support.js';
import { PoolClient } from '../support/pool-client.js';
import { processExists, runVigil } from '../support/vigil-cli.js';
import { startRecordingProxy } from '../support/recording-proxy.js';

const vigil = useVigilProcess({ regions: ['us-east-1'] });
let pools: PoolClient;
let scratch: string;
const run = randomUUID().slice(0, 8);

beforeAll(() => {
  pools = new PoolClient(vigil.regionUrl());
  scratch = mkdtempSync(join(tmpdir(), 'vigil-runner-'));
});
afterAll(() => rmSync(scratch, { recursive: true, force: true }));

/** A pool of one item whose template is `shell`, with short limits so each case takes seconds. */
async function poolRunning(name: string, shell: string, config: Record<string, unknown>) {
  const poolId = `${name}-${run}`;
  const created = await pools.createPool({ poolId, items: [{ itemId: 'item-1', input: { n: 1 } }], config: { agent_template: [{ shell }], ...config } });
  expect(created.status, JSON.stringify(created.body)).toBe(201);
  return poolId;
}

const pidFile = (name: string) => join(scratch, `${name}.pid`);
const childPid = (name: string) => Number(readFileSync(pidFile(name), 'utf8').trim());

function runOnce(poolId: string, extra: string[] = []) {
  return runVigil(['run', '--pool', poolId, '--agent', 'runner-a', '--once', '--endpoint', vigil.regionUrl(), '--heartbeat', '0.25', ...extra], { timeoutMs: 60_000 });
}

describe.concurrent('vigil run --pool against npm start', () => {
  it('stops a shell command that overruns its limit; the item is in the DLQ with a command timeout; no orphan', async () => {
    // Prepare
    const poolId = await poolRunning('overrun', `echo $$ > ${pidFile('overrun')}; sleep 60`, {
      timeout_config: { timeout_policy: 'per_command', timeout_action: 'dlq', cleanup_grace_period_secs: 2, command_timeouts: { shell: 3 } },
    });
    // Act
    const result = await runOnce(poolId);
    // Assess
    expect(result.code, result.transcript).toBe(3);
    const item = (await pools.getItem(poolId, 'item-1')).body;
    expect(item.state, JSON.stringify(item)).toBe('dlq');
    expect(item.history[0]?.timeout).toMatchObject({ type: 'command', commandIndex: 0, commandType: 'shell', limitSeconds: 3 });
    expect(item.history[0]?.resolution, JSON.stringify(item)).toBe('graceful');
    expect(processExists(childPid('overrun'))).toBe(false);
  });

  it('kills a child that ignores SIGTERM at terminateBy: resolution force, no orphan', async () => {
    // Prepare
    const poolId = await poolRunning('stubborn', `trap '' TERM; echo $$ > ${pidFile('stubborn')}; while true; do sleep 0.1; done`, {
      agent_timeout_secs: 3,
      timeout_config: { timeout_action: 'dlq', cleanup_grace_period_secs: 1 },
    });
    // Act
    const result = await runOnce(poolId);
    // Assess
    expect(result.code, result.transcript).toBe(3);
    const item = (await pools.getItem(poolId, 'item-1')).body;
    expect(item.history[0]?.resolution, JSON.stringify(item)).toBe('force');
    expect(item.history[0]?.timeout).toMatchObject({ type: 'agent' });
    expect(processExists(childPid('stubborn'))).toBe(false);
  });

  it('a child that exits on SIGTERM resolves graceful, and its partial result is kept', async () => {
    // Prepare
    const poolId = await poolRunning(
      'polite',
      `echo $$ > ${pidFile('polite')}; trap 'echo "{\\"done\\":3}" > "$VIGIL_RESULT_FILE"; exit 0' TERM; while true; do sleep 0.1; done`,
      { agent_timeout_secs: 3, timeout_config: { timeout_action: 'skip', cleanup_grace_period_secs: 10 } },
    );
    // Act
    const result = await runOnce(poolId);
    // Assess
    expect(result.code, result.transcript).toBe(3);
    const item = (await pools.getItem(poolId, 'item-1')).body;
    expect(item.history[0]?.resolution, JSON.stringify(item)).toBe('graceful');
    expect(item.partialResult).toEqual({ done: 3 });
    expect(processExists(childPid('polite'))).toBe(false);
  });

  it('a child that checkpoints keeps its item past three checkpoint intervals and succeeds', async () => {
    // Prepare: answers each request through the files the runner names in its environment
    const script = [
      'end=$(( $(date +%s) + 7 ))',
      'while [ "$(date +%s)" -lt "$end" ]; do',
      '  if [ -f "$VIGIL_CHECKPOINT_REQUEST_FILE" ]; then',
      '    echo \'{"state":{"step":"working"},"progress":0.5}\' > "$VIGIL_CHECKPOINT_FILE.tmp" && mv "$VIGIL_CHECKPOINT_FILE.tmp" "$VIGIL_CHECKPOINT_FILE"',
      '  fi',
      '  sleep 0.1',
      'done',
      'echo \'{"ok":true}\' > "$VIGIL_RESULT_FILE"',
    ].join('\n');
    const poolId = await poolRunning('checkpointing', script, { agent_timeout_secs: 60, checkpoint_interval_secs: 2, checkpoint_timeout_secs: 1.5, stall_threshold: 3 });
    // Act
    const result = await runOnce(poolId);
    // Assess
    expect(result.code, result.transcript).toBe(0);
    const item = (await pools.getItem(poolId, 'item-1')).body;
    expect(item.state, JSON.stringify(item)).toBe('succeeded');
    expect(item.lastCheckpoint?.state).toEqual({ step: 'working' });
    expect(item.history.map((h) => h.outcome)).toEqual(['succeeded']);
  });

  it('a child that does not checkpoint stalls', async () => {
    // Prepare
    const poolId = await poolRunning('silent', `echo $$ > ${pidFile('silent')}; sleep 30`, {
      agent_timeout_secs: 60,
      checkpoint_interval_secs: 1,
      checkpoint_timeout_secs: 0.5,
      stall_threshold: 3,
      timeout_config: { cleanup_grace_period_secs: 1 },
    });
    // Act
    const result = await runOnce(poolId);
    // Assess
    expect(result.code, result.transcript).toBe(3);
    const item = (await pools.getItem(poolId, 'item-1')).body;
    expect(item.history[0]?.outcome, JSON.stringify(item)).toBe('stalled');
    expect(processExists(childPid('silent'))).toBe(false);
  });

  it('--worker-endpoint: the attempt reports to the worker URL, the claim to --endpoint; the item succeeds', async () => {
    // Prepare: a recording proxy stands where the region's function URL would
    const poolId = await poolRunning('worker-url', `echo "$VIGIL_WORKER_ENDPOINT" > ${join(scratch, 'worker-endpoint.txt')}`, { agent_timeout_secs: 60 });
    const workerUrl = await startRecordingProxy(vigil.regionUrl());
    try {
      // Act
      const result = await runOnce(poolId, ['--worker-endpoint', workerUrl.url]);
      // Assess
      expect(result.code, result.transcript).toBe(0);
      expect((await pools.getItem(poolId, 'item-1')).body.state).toBe('succeeded');
      const paths = workerUrl.requests.map((request) => request.path);
      expect(paths.some((path) => path.endsWith('/complete')), paths.join(', ')).toBe(true);
      expect(paths.every((path) => path.startsWith(`/pools/${poolId}/items/item-1/`)), paths.join(', ')).toBe(true);
      // The child is told where its own agent calls go
      expect(readFileSync(join(scratch, 'worker-endpoint.txt'), 'utf8').trim()).toBe(workerUrl.url);
    } finally {
      await workerUrl.close();
    }
  });

  it('--worker-endpoint that is not a URL: exit 2 with how to fix it, nothing claimed', async () => {
    // Prepare
    const poolId = await poolRunning('bad-worker-url', 'echo done', { agent_timeout_secs: 60 });
    // Act
    const result = await runOnce(poolId, ['--worker-endpoint', 'lambda-url-without-scheme']);
    // Assess
    expect(result.code, result.transcript).toBe(2);
    expect(result.stderr).toMatch(/--worker-endpoint 'lambda-url-without-scheme' is not a URL\. Pass the WorkerUrl output/);
    expect((await pools.getItem(poolId, 'item-1')).body.state).toBe('available');
  });
});
