import { describe, expect, it, vi } from 'vitest';
import { claimedReply, errorReply, iso, useFakeVigil } from '../support/fake-vigil.js';
import { runVigil } from '../support/vigil-cli.js';

// Real processes and a real outage window.
vi.setConfig({ testTimeout: 60_000 });

// Review finding: the runner took a checkpoint file as sent once it had read it. A brief outage of
// Vigil that outlasted one call's retries (five tries, ~3 s) lost the checkpoint the child had written
// for Vigil's request: the request stayed open (a miss; three of them stall the attempt), and the item
// would resume from an older checkpoint.
describe("vigil run: a child's checkpoint outlasts a brief outage of Vigil", () => {
  const vigil = useFakeVigil();

  it('a checkpoint Vigil did not answer is sent again until it is; the request then closes', async () => {
    // Prepare: Vigil asks for a checkpoint until one arrives; the first send of it meets an outage (every try answered 503)
    let sends = 0;
    let checkpointed = false;
    const fake = await vigil.fakeVigil((method, path, _body, seen) => {
      if (path.endsWith('/claims')) return seen.filter((s) => s.path.endsWith('/claims')).length === 1 ? claimedReply('item-1', Date.now() + 60_000) : { status: 204 };
      if (path.endsWith('/heartbeat')) return { status: 200, body: { action: checkpointed ? 'continue' : 'checkpoint', deadlineAt: iso(Date.now() + 60_000) } };
      if (path.endsWith('/checkpoints')) {
        sends++;
        if (sends <= 5) return errorReply(503, 'upstream_unavailable', 'down');
        checkpointed = true;
        return { status: 200, body: {} };
      }
      return { status: 200, body: {} };
    });
    // The child answers the request once, then waits (up to 20 s) for it to close
    const script = [
      'i=0; while [ ! -f "$VIGIL_CHECKPOINT_REQUEST_FILE" ] && [ $i -lt 200 ]; do sleep 0.1; i=$((i+1)); done',
      'echo \'{"state": {"done": 7}, "progress": 0.5}\' > "$VIGIL_CHECKPOINT_FILE.tmp"; mv "$VIGIL_CHECKPOINT_FILE.tmp" "$VIGIL_CHECKPOINT_FILE"',
      'i=0; while [ -f "$VIGIL_CHECKPOINT_REQUEST_FILE" ] && [ $i -lt 200 ]; do sleep 0.1; i=$((i+1)); done',
      '[ -f "$VIGIL_CHECKPOINT_REQUEST_FILE" ] && exit 1',
      'exit 0',
    ].join('\n');
    // Act
    const result = await runVigil(['run', '--pool', 'pool-1', '--agent', 'agent-a', '--once', '--endpoint', fake.url, '--heartbeat', '0.2', '--', 'sh', '-c', script], { timeoutMs: 50_000 });
    // Assess
    const calls = fake.seen.map((s) => `${s.method} ${s.path} ${JSON.stringify(s.body)}`).join('\n');
    expect(checkpointed, `${result.transcript}\ncalls:\n${calls}`).toBe(true);
    expect(result.code, result.transcript).toBe(0);
  });
});
