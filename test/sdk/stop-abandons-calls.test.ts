import { describe, expect, it } from 'vitest';
import { CallBudgetSpentError, claim, startWorkflow, VigilHttp, VigilUnreachableError } from '../../shared/sdk/index.js';
import { claimedReply, iso, useFakeVigil, type FakeVigil } from '../support/fake-vigil.js';
import { pollUntil } from '../support/poll.js';

/**
 * A Vigil that accepts connections and never answers held every call in flight for its 10 s per try
 * and the retries after it: a worker (or `vigil run`) that had stopped its handle still waited ~50 s
 * for calls whose answers no longer mattered. `stop()` abandons them, and a call's own `signal`
 * abandons it: each fails at once with VigilUnreachableError naming why.
 */
describe('the SDK abandons the calls a stopped handle or an aborted signal no longer wants', () => {
  const vigil = useFakeVigil();

  it("a workflow's stop() fails its calls in flight at once, and logs no heartbeat of it as failed", async () => {
    // Prepare: the first report is answered; every later one is held (a heartbeat every 250 ms)
    const fake = await vigil.fakeVigil((_method, _path, _body, seen) =>
      seen.length === 1 ? { status: 200, body: { status: 'RUNNING', cancel: false, deadlineAt: iso(Date.now() + 60_000) } } : 'hang',
    );
    const heartbeatErrors: unknown[] = [];
    const work = await startWorkflow({ endpoint: fake.url, jobId: 'job-1', workflowId: 'wf-1', workerId: 'w', token: 't', stuckThresholdSeconds: 1, onHeartbeatError: (error) => heartbeatErrors.push(error) });
    const progress = settlement(work.progress(0.5));
    // The first report, this one and a heartbeat after it
    await heldCalls(fake, 3);
    // Act
    work.stop();
    // Assess
    expect(await settledPromptly(progress)).toBeInstanceOf(VigilUnreachableError);
    // A beat unanswered when the next came due (250 ms: a loaded machine) failed in its own right; none for the stop.
    expect(heartbeatErrors.filter((error) => !(error instanceof CallBudgetSpentError))).toEqual([]);
  });

  it("an attempt's stop() fails its heartbeat in flight at once", async () => {
    // Prepare
    const fake = await vigil.fakeVigil((_method, path) => (path.endsWith('/claims') ? claimedReply('item-1', Date.now() + 60_000) : 'hang'));
    const attempt = await claim({ endpoint: fake.url, heartbeatIntervalMs: 60_000 }, 'pool-1', 'agent-a');
    if (!attempt) throw new Error('nothing claimed');
    const heartbeat = settlement(attempt.heartbeat());
    await heldCalls(fake, 2);
    // Act
    attempt.stop();
    // Assess
    expect(await settledPromptly(heartbeat)).toBeInstanceOf(VigilUnreachableError);
  });

  it("a call's own signal abandons it: it fails at once, naming the signal's reason", async () => {
    // Prepare
    const fake = await vigil.fakeVigil(() => 'hang');
    const stops = new AbortController();
    const call = settlement(new VigilHttp({ endpoint: fake.url }).call('POST', '/jobs/job-1/cancel', { body: {}, signal: stops.signal }));
    await heldCalls(fake, 1);
    // Act
    stops.abort(new Error('no longer wanted'));
    // Assess
    const failure = await settledPromptly(call);
    expect(failure).toBeInstanceOf(VigilUnreachableError);
    expect(String(failure)).toContain('did not answer POST /jobs/job-1/cancel (no longer wanted)');
  });
});

/** What a call settles to, readable while it is still pending (undefined). */
function settlement(call: Promise<unknown>): () => unknown {
  let settled: { value: unknown } | undefined;
  call.then(
    (value: unknown) => (settled = { value }),
    (error: unknown) => (settled = { value: error }),
  );
  return () => settled?.value;
}

/** Well under the 10 s a held try takes to time out. */
const settledPromptly = (settled: () => unknown) => pollUntil(async () => settled(), { what: 'the abandoned call to fail', timeoutMs: 2_000, intervalMs: 10 });

const heldCalls = (fake: FakeVigil, count: number) => pollUntil(async () => (fake.seen.length >= count ? true : undefined), { what: `${count} calls to reach Vigil`, timeoutMs: 5_000, intervalMs: 10 });
