import { join } from 'node:path';
import { describe, expect, it, vi } from 'vitest';
import { claimedReply, countCalls, errorReply, iso, useFakeVigil } from '../support/fake-vigil.js';
import { pollUntil } from '../support/poll.js';
import { runVigil } from '../support/vigil-cli.js';

// Each case spawns the real command (tsx compiles on start) or waits on real processes.
vi.setConfig({ testTimeout: 60_000 });

describe('vigil run: one mode, checkpoint requests that lapse, a stop by the operator', () => {
  const vigil = useFakeVigil();

  it('vigil run given both --pool and --job exits 2 naming the conflict, and calls nothing', async () => {
    // Prepare
    const fake = await vigil.fakeVigil((method, path) => {
      if (path.endsWith('/progress')) return { status: 200, body: { status: 'RUNNING', cancel: false, deadlineAt: iso(Date.now() + 60_000) } };
      if (path.endsWith('/complete')) return { status: 200, body: { jobId: 'job-1', workflowId: 'wf-1', state: 'completed', jobStatus: 'COMPLETED' } };
      if (path.endsWith('/claims')) return { status: 204 };
      return errorReply(403, 'forbidden', 'client route');
    });
    // Act
    const result = await runVigil(['run', '--pool', 'pool-1', '--agent', 'agent-a', '--job', 'job-1', '--workflow', 'wf-1', '--worker', 'w', '--token', 't', '--endpoint', fake.url, '--', 'true']);
    // Assess: bad usage is exit 2 and changes nothing (here it completed a job's workflow instead)
    expect(result.code, `${result.transcript}
calls: ${fake.seen.map((s) => `${s.method} ${s.path}`).join(', ')}`).toBe(2);
    expect(fake.seen.filter((s) => s.method === 'POST').length, result.transcript).toBe(0);
  });

  it('the checkpoint request file is gone once Vigil no longer waits for a checkpoint (the request lapsed)', async () => {
    // Prepare: Vigil opens one checkpoint request, which lapses unanswered; afterwards every heartbeat says continue
    let heartbeats = 0;
    const fake = await vigil.fakeVigil((method, path, _body, seen) => {
      if (path.endsWith('/claims')) return seen.filter((s) => s.path.endsWith('/claims')).length === 1 ? claimedReply('item-1', Date.now() + 60_000) : { status: 204 };
      if (path.endsWith('/heartbeat')) {
        heartbeats++;
        return { status: 200, body: { action: heartbeats === 1 ? 'checkpoint' : 'continue', deadlineAt: iso(Date.now() + 60_000) } };
      }
      return { status: 200, body: {} };
    });
    // The child waits for the request, then for it to go (up to 10 s: some fifty `continue` heartbeats), and says whether it went
    const script = [
      'i=0; while [ ! -f "$VIGIL_CHECKPOINT_REQUEST_FILE" ] && [ $i -lt 100 ]; do sleep 0.1; i=$((i+1)); done',
      '[ -f "$VIGIL_CHECKPOINT_REQUEST_FILE" ] || exit 3',
      'i=0; while [ -f "$VIGIL_CHECKPOINT_REQUEST_FILE" ] && [ $i -lt 100 ]; do sleep 0.1; i=$((i+1)); done',
      '[ -f "$VIGIL_CHECKPOINT_REQUEST_FILE" ] && exit 1',
      'exit 0',
    ].join('\n');
    // Act
    const result = await runVigil(['run', '--pool', 'pool-1', '--agent', 'agent-a', '--once', '--endpoint', fake.url, '--heartbeat', '0.2', '--', 'sh', '-c', script]);
    // Assess: README "$VIGIL_CHECKPOINT_REQUEST_FILE — exists while Vigil waits for a checkpoint"; it went after a `continue`
    const completes = fake.seen.filter((s) => s.path.endsWith('/complete')).map((s) => JSON.stringify(s.body));
    expect(heartbeats, result.transcript).toBeGreaterThanOrEqual(2);
    expect(completes, result.transcript).toEqual([expect.stringContaining('"outcome":"succeeded"')]);
  });

  it('vigil run --pool told to stop (Ctrl-C) stops its child and claims no further item', async () => {
    // Prepare: a pool with items to spare; every claim gets a new item
    const fake = await vigil.fakeVigil((method, path, _body, seen) => {
      if (path.endsWith('/claims')) return claimedReply(`item-${seen.filter((s) => s.path.endsWith('/claims')).length}`, Date.now() + 120_000);
      if (path.endsWith('/heartbeat')) return { status: 200, body: { action: 'continue', deadlineAt: iso(Date.now() + 120_000) } };
      return { status: 200, body: {} };
    });
    const scratch = vigil.scratch();
    const runner = vigil.startVigil([
      'run', '--pool', 'pool-1', '--agent', 'agent-a', '--endpoint', fake.url, '--grace', '3', '--heartbeat', '0.5',
      '--', 'sh', '-c', `echo $$ > ${scratch}/sigint-$VIGIL_ITEM.pid; sleep 30`,
    ]);
    await vigil.childPid(join(scratch, 'sigint-item-1.pid'));
    // Act: the operator presses Ctrl-C once
    runner.child.kill('SIGINT');
    const result = await runner.done;
    // Assess: the child exited on SIGTERM; the runner must not take another item it will then abandon
    const claims = countCalls(fake, 'POST', '/claims');
    const completes = fake.seen.filter((s) => s.path.endsWith('/complete')).map((s) => JSON.stringify(s.body));
    expect(claims, `${result.transcript}\ncompletes: ${completes.join(', ')}`).toBe(1);
    expect(completes, 'the stopped item goes back to the pool, it did not fail').toEqual([]);
    expect(countCalls(fake, 'POST', '/terminated')).toBe(1);
  });
  it("a job's child asks for an extension through its file and reads Vigil's answer from the runner's", async () => {
    // Prepare
    const fake = await vigil.fakeVigil((method, path) => {
      if (path.endsWith('/progress')) return { status: 200, body: { status: 'RUNNING', cancel: false, deadlineAt: iso(Date.now() + 60_000) } };
      if (path.endsWith('/extensions')) return { status: 200, body: { granted: true, extensionSeconds: 30, newDeadline: iso(Date.now() + 90_000), remainingExtensions: 4 } };
      if (path.endsWith('/complete')) return { status: 200, body: { jobId: 'job-1', workflowId: 'wf-1', state: 'completed', jobStatus: 'COMPLETED' } };
      return errorReply(403, 'forbidden', 'client route');
    });
    const script = [
      'echo \'{"currentProgress": 0.4, "reason": "gc_pause"}\' > "$VIGIL_EXTENSION_REQUEST_FILE.tmp"',
      'mv "$VIGIL_EXTENSION_REQUEST_FILE.tmp" "$VIGIL_EXTENSION_REQUEST_FILE"',
      'i=0; while [ ! -f "$VIGIL_EXTENSION_ANSWER_FILE" ] && [ $i -lt 100 ]; do sleep 0.1; i=$((i+1)); done',
      'grep -q \'"granted":true\' "$VIGIL_EXTENSION_ANSWER_FILE"',
    ].join('\n');
    // Act
    const result = await runVigil(['run', '--job', 'job-1', '--workflow', 'wf-1', '--worker', 'w', '--token', 't', '--endpoint', fake.url, '--', 'sh', '-c', script]);
    // Assess: the child saw the grant (exit 0 → completed), and Vigil was asked with what it wrote
    expect(result.code, result.transcript).toBe(0);
    const asked = fake.seen.filter((s) => s.path === '/workers/w/extensions').map((s) => s.body);
    expect(asked).toEqual([{ reason: 'gc_pause', currentProgress: 0.4, requestId: expect.any(String) }]);
  });
  it('vigil run --follow outlasts an outage of Vigil longer than a claim waits, then claims again', async () => {
    // Prepare: Vigil is down (503) until the runner gives up on its first claim, which it repeats with
    // the same claimId for the claim patience (35 s by default; here 3 s: the SDK's default is
    // test/sdk/claim-patience.test.ts's), and claims anew; then the pool is empty. So the outage outlasts
    // a claim's wait however its repeats fall (a fixed outage may end just before the claim gives up).
    const patienceMs = 3_000;
    const claimIdOf = (body: unknown) => (typeof body === 'object' && body !== null && 'claimId' in body ? body.claimId : undefined);
    let firstClaimId: unknown;
    const fake = await vigil.fakeVigil((method, path, body) => {
      if (!path.endsWith('/claims')) return { status: 200, body: {} };
      firstClaimId ??= claimIdOf(body);
      return claimIdOf(body) === firstClaimId ? errorReply(503, 'upstream_unavailable', 'down') : { status: 204 };
    });
    const runner = vigil.startVigil(['run', '--pool', 'pool-1', '--agent', 'agent-a', '--follow', '--endpoint', fake.url, '--', 'true'], {
      VIGIL_CLAIM_PATIENCE_SECONDS: String(patienceMs / 1000),
    });
    // Act: once it claims after the outage, the operator stops it
    const claims = () => fake.seen.filter((s) => s.path.endsWith('/claims'));
    const claimAfterOutage = await pollUntil(async () => claims().find((s) => claimIdOf(s.body) !== firstClaimId), {
      what: () => `a claim after the outage; claims so far at ${claims().map((s) => new Date(s.at).toISOString()).join(', ')}`,
      timeoutMs: 30_000,
    });
    runner.child.kill('SIGINT');
    const result = await runner.done;
    // Assess: it never gave up (exit 4) on an outage longer than a claim waits; stopped with nothing claimed, it exits 0
    const outageMs = claimAfterOutage.at - (claims()[0]?.at ?? Number.NaN);
    expect(outageMs, result.transcript).toBeGreaterThanOrEqual(patienceMs);
    expect(result.code, result.transcript).toBe(0);
  });
});
