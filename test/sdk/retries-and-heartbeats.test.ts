import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { claim, startWorkflow, VigilUnreachableError } from '../../shared/sdk/index.js';
import { claimedReply, errorReply, iso, useFakeVigil } from '../support/fake-vigil.js';
import { holdingVigil, useFakeSdkTimers } from '../support/holding-vigil.js';
import { runVigil } from '../support/vigil-cli.js';

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

// Review findings: a claim retried after its answer was lost took a second item and stranded the
// first; a submit without an id, retried, made a second job.
describe('a call is repeated only with what makes it idempotent', () => {
  const vigil = useFakeVigil();
  afterEach(() => {
    vi.useRealTimers();
    vi.unstubAllGlobals();
  });

  it('claim() repeats a claim whose answer was lost with the same claimId, so Vigil answers the attempt it took', async () => {
    // Prepare: the first claim is applied but its answer is lost (API Gateway 504)
    const fake = await vigil.fakeVigil((method, path, _body, seen) => {
      if (method === 'POST' && path.endsWith('/claims')) {
        const n = seen.filter((s) => s.path.endsWith('/claims')).length;
        return n === 1 ? { status: 504, text: '{"message": "Endpoint request timed out"}' } : claimedReply('item-1', Date.now() + 60_000);
      }
      return { status: 200, body: { action: 'continue', deadlineAt: null } };
    });
    // Act
    const attempt = await claim({ endpoint: fake.url, retry: { baseDelayMs: 1, maxDelayMs: 5 }, heartbeatIntervalMs: 60_000 }, 'pool-1', 'agent-a');
    attempt?.stop();
    // Assess: sent again, and every repeat names the same claimId (Vigil's receipt gives it the same attempt)
    const claimIds = fake.seen.filter((s) => s.path.endsWith('/claims')).map((s) => (s.body as { claimId?: string }).claimId);
    expect(claimIds).toHaveLength(2);
    expect(claimIds[0]).toMatch(/^[A-Za-z0-9._:-]{1,128}$/);
    expect(claimIds[1]).toBe(claimIds[0]);
    expect(attempt?.claim.itemId).toBe('item-1');
  });

  it('two claim() calls use two claimIds: each is a claim of its own', async () => {
    // Prepare
    const fake = await vigil.fakeVigil((method, path, _body, seen) => {
      if (method === 'POST' && path.endsWith('/claims')) return claimedReply(`item-${seen.filter((s) => s.path.endsWith('/claims')).length}`, Date.now() + 60_000);
      return { status: 200, body: { action: 'continue', deadlineAt: null } };
    });
    const options = { endpoint: fake.url, heartbeatIntervalMs: 60_000 };
    // Act
    const first = await claim(options, 'pool-1', 'agent-a');
    const second = await claim(options, 'pool-1', 'agent-a');
    first?.stop();
    second?.stop();
    // Assess
    const claimIds = fake.seen.filter((s) => s.path.endsWith('/claims')).map((s) => (s.body as { claimId?: string }).claimId);
    expect(new Set(claimIds).size).toBe(2);
  });

  it('requestExtension() repeats a request whose answer was lost with the same requestId, and names each call anew', async () => {
    // Prepare: the first extension request is applied but its answer is lost (API Gateway 504)
    const deadline = iso(Date.now() + 60_000);
    const fake = await vigil.fakeVigil((method, path, _body, seen) => {
      if (path.endsWith('/extensions')) {
        const n = seen.filter((s) => s.path.endsWith('/extensions')).length;
        if (n === 1) return { status: 504, text: '{"message": "Endpoint request timed out"}' };
        return { status: 200, body: { granted: true, extensionSeconds: 30, newDeadline: deadline, remainingExtensions: 4 } };
      }
      return { status: 200, body: { status: 'RUNNING', cancel: false, deadlineAt: deadline } };
    });
    const handle = await startWorkflow({ endpoint: fake.url, jobId: 'job-1', workflowId: 'wf-1', workerId: 'w', token: 't', stuckThresholdSeconds: 600, retry: { baseDelayMs: 1, maxDelayMs: 5 } });
    // Act
    await handle.requestExtension('long_workflow', 0.5);
    await handle.requestExtension('long_workflow', 0.6);
    handle.stop();
    // Assess: the repeat names the first try's request (Vigil answers it with its grant); the next call is another request
    const requestIds = fake.seen.filter((s) => s.path.endsWith('/extensions')).map((s) => (s.body as { requestId?: string }).requestId);
    expect(requestIds).toHaveLength(3);
    expect(requestIds[0]).toMatch(/^[A-Za-z0-9._:-]{1,128}$/);
    expect(requestIds[1]).toBe(requestIds[0]);
    expect(requestIds[2]).not.toBe(requestIds[0]);
  });

  it('vigil submit of a job without a jobId, retried after a 504, is not submitted as a second job', async () => {
    // Prepare
    const fake = await vigil.fakeVigil((method, path, body, seen) => {
      if (method !== 'POST' || path !== '/jobs') return errorReply(404, 'route_not_found', 'no such route');
      const n = seen.filter((s) => s.path === '/jobs').length;
      if (n === 1) return { status: 504, text: '{"message": "Endpoint request timed out"}' };
      const jobId = (body as { jobId?: string }).jobId ?? `job-${n}`;
      return { status: 201, body: { jobId, status: 'RUNNING', strategy: 'local_authority', fenceToken: 1, deadlineAt: iso(Date.now() + 300_000), workflows: [{ workflowId: 'wf-1', workerId: 'w', token: 't' }] } };
    });
    const file = join(vigil.scratch(), 'job.json');
    writeFileSync(file, JSON.stringify({ timeoutSeconds: 300, workflows: [{ workflowId: 'wf-1', workerId: 'w' }] }));
    // Act
    const result = await runVigil(['submit', file, '--endpoint', fake.url]);
    // Assess: either sent once, or every repeat names the same jobId so Vigil deduplicates it
    const sent = fake.seen.filter((s) => s.path === '/jobs').map((s) => (s.body as { jobId?: string }).jobId);
    const idempotent = sent.length === 1 || (sent[0] !== undefined && sent.every((jobId) => jobId === sent[0]));
    expect(idempotent, `${result.transcript}\nPOST /jobs sent ${sent.length} times with jobIds ${JSON.stringify(sent)}`).toBe(true);
  });
});

// Review findings: a missed checkpoint request silenced every later one; a refused startWorkflow left its heartbeat running.
describe('the worker SDK hears every request and leaves nothing running', () => {
  const vigil = useFakeVigil();

  it('onCheckpointRequested fires again for a new checkpoint request after one went unanswered', async () => {
    // Prepare: Vigil opens a request, it lapses (missed), then Vigil opens the next one
    const answers = ['checkpoint', 'continue', 'checkpoint'];
    const fake = await vigil.fakeVigil((method, path) => {
      if (path.endsWith('/claims')) return claimedReply('item-1', Date.now() + 60_000);
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
    const fake = await vigil.fakeVigil(() => errorReply(403, 'invalid_token', 'The token is not valid for this workflow.'));
    // Act
    const failure = await startWorkflow({ endpoint: fake.url, jobId: 'job-1', workflowId: 'wf-1', workerId: 'w', token: 'bad', stuckThresholdSeconds: 1 }).catch((e: unknown) => e);
    const refusedAt = Date.now();
    await sleep(1_200);
    // Assess: the caller got an error and no handle; nothing may keep calling Vigil with the refused token
    expect(failure).toBeInstanceOf(Error);
    const after = fake.seen.filter((s) => s.path.endsWith('/progress') && s.at > refusedAt).length;
    expect(after, 'progress calls sent after startWorkflow rejected').toBe(0);
  });

  it("after a granted extension the handle's deadline is the job's as Vigil moved it, not the old one plus the grant", async () => {
    // Prepare: the grant is 30 s, but this job's extension budget let its deadline move by 10 s only
    const before = Date.now() + 60_000;
    let granted = false;
    const fake = await vigil.fakeVigil((method, path) => {
      if (path.endsWith('/extensions')) {
        granted = true;
        return { status: 200, body: { granted: true, extensionSeconds: 30, newDeadline: iso(before + 30_000), remainingExtensions: 4 } };
      }
      if (path.endsWith('/progress')) return { status: 200, body: { status: 'RUNNING', cancel: false, deadlineAt: iso(granted ? before + 10_000 : before) } };
      return errorReply(404, 'route_not_found', 'no');
    });
    const handle = await startWorkflow({ endpoint: fake.url, jobId: 'job-1', workflowId: 'wf-1', workerId: 'w', token: 't', stuckThresholdSeconds: 600 });
    // Act
    await handle.requestExtension('long_workflow', 0.5);
    handle.stop();
    // Assess
    expect(handle.deadlineAtMs).toBe(Date.parse(iso(before + 10_000)));
  });

  it('a heartbeat refused with invalid_token (the job expired and its id was reused) tells the worker to stop', async () => {
    // Prepare: the first report is accepted; every later one is refused
    const fake = await vigil.fakeVigil((method, path, _body, seen) => {
      if (!path.endsWith('/progress')) return errorReply(404, 'route_not_found', 'no');
      return seen.length === 1
        ? { status: 200, body: { status: 'RUNNING', cancel: false, deadlineAt: iso(Date.now() + 60_000) } }
        : errorReply(403, 'invalid_token', 'This token was issued for an earlier job with this id.');
    });
    const handle = await startWorkflow({ endpoint: fake.url, jobId: 'job-1', workflowId: 'wf-1', workerId: 'w', token: 't', stuckThresholdSeconds: 1 });
    // Act: the next heartbeat (every 250 ms) is refused
    const stopped = await new Promise<boolean>((resolve) => {
      const timer = setTimeout(() => resolve(false), 5_000);
      handle.signal.addEventListener('abort', () => (clearTimeout(timer), resolve(true)), { once: true });
    });
    handle.stop();
    // Assess
    expect(stopped).toBe(true);
  });

  it('a report answered keys_refreshing (a container yet to read a rotated-in key) is retried and succeeds; one that never gets through fails without stopping the work', async () => {
    // Prepare: the first report is accepted; the next two tries, and later every try of the third report, meet a stale container
    const refreshing = errorReply(503, 'keys_refreshing', 'This region is reloading the keys tokens are signed with. Retry in 27 s.');
    const running = { status: 200, body: { status: 'RUNNING', cancel: false, deadlineAt: iso(Date.now() + 600_000) } };
    let staleTries = 2;
    const fake = await vigil.fakeVigil((method, path, body) => {
      if (!path.endsWith('/progress')) return errorReply(404, 'route_not_found', 'no');
      if ((body as { step?: string }).step === 'never-through') return refreshing;
      return (body as { step?: string }).step === 'during-refresh' && staleTries-- > 0 ? refreshing : running;
    });
    const handle = await startWorkflow({ endpoint: fake.url, jobId: 'job-1', workflowId: 'wf-1', workerId: 'w', token: 't', stuckThresholdSeconds: 600, retry: { baseDelayMs: 1, maxDelayMs: 5 } });
    // Act
    const retried = await handle.progress({ step: 'during-refresh' });
    const neverThrough = await handle.progress({ step: 'never-through' }).catch((error: unknown) => error);
    const afterwards = await handle.progress({ step: 'afterwards' });
    handle.stop();
    // Assess
    expect(retried.status).toBe('RUNNING');
    expect(fake.seen.filter((s) => (s.body as { step?: string }).step === 'during-refresh')).toHaveLength(3);
    expect(neverThrough).toBeInstanceOf(VigilUnreachableError);
    expect(String(neverThrough)).toContain('503 keys_refreshing');
    expect(handle.signal.aborted).toBe(false);
    expect(afterwards.status).toBe('RUNNING');
  });

  // On the fake clock (the SDK's timers and clocks): the deadline, the ask and its 5 s to answer, exactly.
  it('a worker whose deadline passes while Vigil hangs is told to stop within seconds, not at its next heartbeat', async () => {
    // Prepare: the deadline is a second away; then Vigil stops answering
    useFakeSdkTimers();
    const deadline = Date.now() + 1_000;
    const held = holdingVigil(() => ({ status: 'RUNNING', cancel: false, deadlineAt: iso(deadline) }));
    // Heartbeats every 150 s: only the deadline watch can tell the worker in time
    const handle = await startWorkflow({ endpoint: held.endpoint, jobId: 'job-1', workflowId: 'wf-1', workerId: 'w', token: 't', stuckThresholdSeconds: 600 });
    held.hold();
    let stoppedAt: number | undefined;
    handle.signal.addEventListener('abort', () => (stoppedAt = Date.now()), { once: true });
    // Act
    await vi.advanceTimersByTimeAsync(15_000);
    handle.stop();
    // Assess: asked at the deadline (the first report, then the ask), and told to stop when Vigil had not answered within 5 s
    expect(stoppedAt).toBe(deadline + 5_000);
    expect(held.calls.filter((call) => call.path.endsWith('/progress') && call.at < deadline + 5_000).map((call) => call.at)).toEqual([0, deadline]);
  });

  it('an agent learns of a checkpoint request whose window falls between two heartbeats', async () => {
    // Prepare: requests open every 8 s from the claim and close 2 s later; heartbeats every 3.5 s (at 3.5, 7, 10.5 s: none inside 8–10 s)
    useFakeSdkTimers();
    let claimedAt = 0;
    const held = holdingVigil(({ path }) => {
      if (path.endsWith('/claims')) {
        claimedAt = Date.now();
        return { ...claimedReply('item-1', Date.now() + 60_000).body, checkpointIntervalSeconds: 8 };
      }
      const sinceClaim = Date.now() - claimedAt;
      const open = sinceClaim >= 8_000 && sinceClaim % 8_000 < 2_000;
      return { action: open ? 'checkpoint' : 'continue', deadlineAt: iso(Date.now() + 60_000) };
    });
    const attempt = await claim({ endpoint: held.endpoint, heartbeatIntervalMs: 3_500 }, 'pool-1', 'agent-a');
    if (!attempt) throw new Error('nothing claimed');
    let askedAt: number | undefined;
    attempt.onCheckpointRequested(() => (askedAt ??= Date.now()));
    // Act: until the first window has closed
    await vi.advanceTimersByTimeAsync(10_200);
    attempt.stop();
    // Assess: heard inside the first window (8–10 s), from a beat of its own
    expect(askedAt).toBeDefined();
    expect(askedAt! - claimedAt).toBeGreaterThanOrEqual(8_000);
    expect(askedAt! - claimedAt).toBeLessThan(10_000);
  });
});
