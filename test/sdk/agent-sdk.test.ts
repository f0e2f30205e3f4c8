import { randomUUID } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import { claim, TerminateRequest, VigilApiError } from '../../shared/sdk/index.js';
import { useVigilProcess } from '../e2e/e2e-support.js';
import { PoolClient } from '../support/pool-client.js';
import { pollUntil } from '../support/poll.js';
import { startRecordingProxy } from '../support/recording-proxy.js';

describe('the agent SDK against npm start', () => {
  const vigil = useVigilProcess({ regions: ['us-east-1'] });
  const run = randomUUID().slice(0, 8);

  async function pool(name: string, config: Record<string, unknown>) {
    const poolId = `${name}-${run}`;
    const created = await new PoolClient(vigil.regionUrl()).createPool({ poolId, items: [{ itemId: 'item-1', input: { n: 1 } }], config });
    expect(created.status).toBe(201);
    return poolId;
  }

  it('fires the AbortSignal on terminate, with terminateBy, and reports terminated', async () => {
    // Prepare
    const poolId = await pool('terminate', { agent_timeout_secs: 1, timeout_config: { timeout_action: 'dlq', cleanup_grace_period_secs: 5 } });
    const attempt = await claim({ endpoint: vigil.regionUrl(), heartbeatIntervalMs: 200 }, poolId, 'agent-a');
    if (!attempt) throw new Error('nothing claimed');
    // Act
    await pollUntil(async () => (attempt.signal.aborted ? true : undefined), { what: 'terminate', timeoutMs: 15_000, intervalMs: 20 });
    await attempt.terminated('completed', { partial: true });
    // Assess
    expect(attempt.signal.reason).toBeInstanceOf(TerminateRequest);
    expect(attempt.terminateByMs).toBeGreaterThan(Date.now() - 10_000);
    const item = (await new PoolClient(vigil.regionUrl()).getItem(poolId, 'item-1')).body;
    expect(item).toMatchObject({ state: 'dlq', partialResult: { partial: true } });
    expect(item.history[0]?.resolution).toBe('graceful');
  });

  it('calls onCheckpointRequested when Vigil asks, and a checkpoint answers it', async () => {
    // Prepare
    const poolId = await pool('checkpoint', { agent_timeout_secs: 60, checkpoint_interval_secs: 1, checkpoint_timeout_secs: 0.8 });
    const attempt = await claim({ endpoint: vigil.regionUrl(), heartbeatIntervalMs: 100 }, poolId, 'agent-a');
    if (!attempt) throw new Error('nothing claimed');
    let requests = 0;
    let answering = true;
    const answers: Array<Promise<unknown>> = [];
    attempt.onCheckpointRequested(() => {
      if (!answering) return;
      requests++;
      answers.push(attempt.checkpoint({ cursor: requests }, 0.5));
    });
    // Act
    await pollUntil(async () => (requests >= 2 ? true : undefined), { what: 'two checkpoint requests', timeoutMs: 15_000 });
    // A checkpoint still in flight when the attempt completes would be refused (409 stale_attempt): every one is answered first.
    answering = false;
    await Promise.all(answers);
    await attempt.complete('succeeded', { ok: true });
    // Assess
    const item = (await new PoolClient(vigil.regionUrl()).getItem(poolId, 'item-1')).body;
    expect(item.state).toBe('succeeded');
    expect(item.lastCheckpoint?.state).toMatchObject({ cursor: expect.any(Number) });
  });

  it('a call with a stale attempt is a typed 409 stale_attempt', async () => {
    // Prepare: an attempt that is over (terminated), then the item claimed again
    const poolId = await pool('stale', { agent_timeout_secs: 1, timeout_config: { timeout_action: 'retry', cleanup_grace_period_secs: 0.5 } });
    const first = await claim({ endpoint: vigil.regionUrl(), heartbeatIntervalMs: 200 }, poolId, 'agent-a');
    if (!first) throw new Error('nothing claimed');
    await pollUntil(async () => (first.signal.aborted ? true : undefined), { what: 'terminate', timeoutMs: 15_000, intervalMs: 20 });
    await first.terminated('completed');
    const second = await pollUntil(async () => claim({ endpoint: vigil.regionUrl() }, poolId, 'agent-b'), { what: 'a second claim', timeoutMs: 10_000 });
    second.stop();
    // Act
    const failure = await first.complete('succeeded').catch((error: unknown) => error);
    // Assess
    expect(failure).toBeInstanceOf(VigilApiError);
    expect(failure).toMatchObject({ status: 409, code: 'stale_attempt' });
  });

  it('with workerEndpoint (a region deployed with a WorkerUrl), the attempt calls go there and the claim to endpoint', async () => {
    // Prepare: a recording proxy stands where the function URL would
    const poolId = await pool('worker-url', { agent_timeout_secs: 60 });
    const workerUrl = await startRecordingProxy(vigil.regionUrl());
    try {
      // Act
      const attempt = await claim({ endpoint: vigil.regionUrl(), workerEndpoint: workerUrl.url, heartbeatIntervalMs: 100 }, poolId, 'agent-a');
      if (!attempt) throw new Error('nothing claimed');
      await attempt.heartbeat();
      await attempt.checkpoint({ cursor: 1 });
      await attempt.complete('succeeded', { ok: true });
      // Assess
      const paths = new Set(workerUrl.requests.map((request) => `${request.method} ${request.path.replace(/\/items\/[^/]+\//, '/items/{itemId}/')}`));
      expect([...paths].sort()).toEqual(
        [`POST /pools/${poolId}/items/{itemId}/heartbeat`, `POST /pools/${poolId}/items/{itemId}/checkpoints`, `POST /pools/${poolId}/items/{itemId}/complete`].sort(),
      );
      expect((await new PoolClient(vigil.regionUrl()).getItem(poolId, 'item-1')).body.state).toBe('succeeded');
    } finally {
      await workerUrl.close();
    }
  });
});
