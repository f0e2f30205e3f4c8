import { afterEach, describe, expect, it, vi } from 'vitest';
import { WORKLOADS } from '../../shared/simulation/cost/report.js';
import { measurePool, POOL_WORKLOAD, type PoolWorkload } from '../../shared/simulation/cost/pool-workload.js';
import { measureVigil } from '../../shared/simulation/cost/vigil-usage.js';
import { startWorkflow } from '../../shared/sdk/workflow.js';
import { claim } from '../../shared/sdk/agent.js';
import { claimedCadence } from '../../shared/domain/pools/heartbeat-cadence.js';
import { resolvePoolConfig } from '../../shared/domain/pools/pool-config.js';

/**
 * The cost model's simulated workers call as the shipped SDK (`startWorkflow`) does: every
 * worker call is an API Gateway request (or a function-URL call), a Lambda invocation, its DynamoDB
 * reads and usually a write, so a model that called less would price Vigil too low (found by a
 * review: it had priced only the progress calls). The same holds for agents (`claim`): the model had
 * priced them beating every 30 s, the SDK's and `vigil run`'s default being 5 s then; both now beat at
 * the cadence the claim answers (10 s for the workload's pool).
 */

const MINUTE = 60_000;
const ENDPOINT = 'https://vigil.example';

/** Stubs `fetch`: answers each route as Vigil would with a running job or attempt, and records every request. */
function fakeVigil(deadlineAt: string) {
  const requests: string[] = [];
  let claimedAtMs: number | undefined;
  let checkpointedAtMs = -Infinity;
  // As Vigil does: a checkpoint request opens every interval from the claim, open until answered or its timeout passed.
  const checkpointRequested = () => {
    if (claimedAtMs === undefined) return false;
    const everyMs = POOL_WORKLOAD.config.checkpoint_interval_secs * 1000;
    const openedAtMs = claimedAtMs + Math.floor((Date.now() - claimedAtMs) / everyMs) * everyMs;
    return openedAtMs > claimedAtMs && Date.now() < openedAtMs + POOL_WORKLOAD.config.checkpoint_timeout_secs * 1000 && checkpointedAtMs < openedAtMs;
  };
  const json = (body: unknown) => new Response(JSON.stringify(body), { status: 200, headers: { 'content-type': 'application/json' } });
  const fetch = vi.fn(async (url: string | URL, init?: RequestInit) => {
    const path = new URL(String(url)).pathname;
    requests.push(`${init?.method ?? 'GET'} ${path}`);
    if (path.endsWith('/progress')) return json({ status: 'RUNNING', cancel: false, deadlineAt });
    if (path.endsWith('/complete') && path.includes('/workflows/')) return json({ jobId: 'j', workflowId: 'wf-0', state: 'completed', jobStatus: 'RUNNING' });
    if (path.endsWith('/claims')) {
      claimedAtMs = Date.now();
      return json({
        itemId: 'item-0',
        attempt: 1,
        token: 't',
        deadlineAt,
        commands: [{ index: 0, type: 'claude', limitSeconds: 480 }],
        // As Vigil answers for the pool workload's config: checkpoints every 120 s, a beat every 10 s
        ...claimedCadence(resolvePoolConfig(POOL_WORKLOAD.config)),
      });
    }
    if (path.endsWith('/heartbeat')) return json({ action: checkpointRequested() ? 'checkpoint' : 'continue', deadlineAt });
    if (path.endsWith('/checkpoints')) checkpointedAtMs = Date.now();
    if (path.includes('/commands/')) return json({ deadlineAt });
    return json({});
  });
  vi.stubGlobal('fetch', fetch);
  return requests;
}

afterEach(() => {
  vi.useRealTimers();
  vi.unstubAllGlobals();
});

describe('the cost model prices the calls the shipped SDK makes', () => {
  it('README cost sketch (4 wf × 15 min, progress every 60 s): the model prices at least the calls a workflow on the SDK makes', async () => {
    // Arrange: the model's count for the sketch workload, per workflow
    const sketch = WORKLOADS[4];
    if (!sketch) throw new Error('no sketch workload');
    const { perJob } = await measureVigil(sketch);
    const modelCallsPerWorkflow = perJob.apiRequestsWorker / sketch.workflows;
    // Arrange: the real SDK on a virtual clock, the worker passing stuckThresholdSeconds (the README's assumption)
    vi.useFakeTimers({ now: 0, toFake: ['setTimeout', 'clearTimeout', 'setInterval', 'clearInterval', 'Date'] });
    const requests = fakeVigil(new Date(31 * MINUTE).toISOString());
    const work = await startWorkflow({ endpoint: ENDPOINT, jobId: 'j', workflowId: 'wf-0', workerId: 'w-0', token: 't', stuckThresholdSeconds: 120 });

    // Act: the workload as stated: a progress call every 60 s for 15 minutes, then the outcome
    const reports = sketch.durationMs / sketch.progressEveryMs;
    for (let k = 1; k <= reports; k++) {
      await vi.advanceTimersByTimeAsync(sketch.progressEveryMs);
      await work.progress(k / (reports + 1));
    }
    await work.complete('completed');

    // Assess: every request the SDK sent is a billed worker call (API Gateway request + Lambda + DynamoDB)
    const heartbeats = requests.filter((r) => r.endsWith('/progress')).length - reports;
    expect(heartbeats).toBeGreaterThan(0);
    expect(modelCallsPerWorkflow, `model ${modelCallsPerWorkflow} calls per workflow, SDK ${requests.length} (${reports} progress, ${heartbeats} heartbeats and the first report, 1 complete)`).toBeGreaterThanOrEqual(requests.length);
  }, 60_000);

  it('a workflow reporting more often than its heartbeat interval sends no heartbeat; one that goes quiet beats after each interval', async () => {
    // Arrange: a 120 s stuck threshold: a beat after each 30 s without a call
    vi.useFakeTimers({ now: 0, toFake: ['setTimeout', 'clearTimeout', 'setInterval', 'clearInterval', 'Date'] });
    const requests = fakeVigil(new Date(31 * MINUTE).toISOString());
    const work = await startWorkflow({ endpoint: ENDPOINT, jobId: 'j', workflowId: 'wf-0', workerId: 'w-0', token: 't', stuckThresholdSeconds: 120 });

    // Act: a report every 10 s for 5 minutes, then 65 s of quiet
    for (let k = 1; k <= 30; k++) {
      await vi.advanceTimersByTimeAsync(10_000);
      await work.progress(k / 31);
    }
    const whileReporting = requests.length;
    await vi.advanceTimersByTimeAsync(65_000);
    work.stop();

    // Assess: the first report and 30 reports, then two beats (at 30 s and 60 s of quiet)
    expect(whileReporting).toBe(31);
    expect(requests.length - whileReporting).toBe(2);
  }, 60_000);

  /** One item of the pool workload as `vigil run` works it on the SDK, on a virtual clock: every request it sends. */
  async function sdkCallsPerItem(workload: PoolWorkload): Promise<string[]> {
    vi.useFakeTimers({ now: 0, toFake: ['setTimeout', 'clearTimeout', 'setInterval', 'clearInterval', 'Date'] });
    const requests = fakeVigil(new Date((workload.config.agent_timeout_secs ?? 600) * 1000).toISOString());
    // A 30 s interval is slower than the pool's cadence: the SDK's warning is not this test's concern.
    const options = { endpoint: ENDPOINT, onWarning: () => undefined, ...(workload.heartbeatIntervalMs !== undefined ? { heartbeatIntervalMs: workload.heartbeatIntervalMs } : {}) };
    const attempt = await claim(options, 'cost-pool', 'agent-0');
    if (!attempt) throw new Error('nothing claimed');
    attempt.onCheckpointRequested(() => void attempt.checkpoint({ step: 0 }, 0.5));
    await attempt.startCommand(0, 'claude');
    await vi.advanceTimersByTimeAsync(workload.workMs);
    await attempt.finishCommand(0, 'succeeded');
    await attempt.complete('succeeded', {});
    return requests;
  }

  for (const heartbeatIntervalMs of [undefined, 5_000, 30_000]) {
    it(`agent pool, heartbeat ${heartbeatIntervalMs === undefined ? "the SDK's default (the pool's cadence)" : `${heartbeatIntervalMs / 1000} s`}: the model prices the calls an agent on the SDK makes per item`, async () => {
      // Arrange: a small pool of the workload's shape (the report runs 1,000 items)
      const workload = { ...POOL_WORKLOAD, items: 20, agents: 5, ...(heartbeatIntervalMs !== undefined ? { heartbeatIntervalMs } : {}) };
      const { agentCallsPerItem } = await measurePool(workload);
      // Act: the real SDK works one item as the workload states
      const requests = await sdkCallsPerItem(workload);
      // Assess: at least the SDK's calls (its beats, the beat after each checkpoint request opens), and
      // no more than the idle agents' claims and pool reads as the pool runs out
      const sdk = requests.length;
      expect(requests.filter((r) => r.endsWith('/heartbeat')).length).toBeGreaterThan(sdk / 2);
      expect(agentCallsPerItem, `model ${agentCallsPerItem} agent calls per item, SDK ${sdk}`).toBeGreaterThanOrEqual(sdk);
      expect(agentCallsPerItem, `model ${agentCallsPerItem} agent calls per item, SDK ${sdk}`).toBeLessThanOrEqual(sdk + 1.5);
    }, 60_000);
  }
});
