import { describe, expect, it, vi } from 'vitest';
import { claimedReply, errorReply, useFakeVigil } from '../support/fake-vigil.js';
import { pollUntil } from '../support/poll.js';

// Real processes.
vi.setConfig({ testTimeout: 60_000 });

/**
 * Scenario: `vigil run --pool P --agent A --follow -- CMD` runs an item, and Vigil goes down before
 * the item's outcome is delivered. The runner sends it again until the attempt's deadline, then gives
 * up (Vigil decides the attempt without it). That give-up escaped the claim loop: the runner exited 4,
 * though `--follow` keeps waiting "through an outage of Vigil too: it holds nothing while it waits"
 * (README, "The agent runner"), and past the deadline it holds nothing.
 *
 * Correct behaviour: with --follow the runner logs that the outcome was not delivered, counts the
 * item as not succeeded (Vigil times it out: exit 3 at the end), and claims on once Vigil answers.
 */
describe('vigil run --follow when an item’s outcome cannot be delivered before its deadline', () => {
  const vigil = useFakeVigil();

  it('claims on after the outage instead of exiting 4; the item counts as terminated', async () => {
    // Prepare: one item with a 2 s deadline; every call of its attempt meets an outage (503); later claims find nothing
    const fake = await vigil.fakeVigil((_method, path, _body, seen) => {
      if (path.endsWith('/claims')) return seen.filter((s) => s.path.endsWith('/claims')).length > 1 ? { status: 204 } : claimedReply('item-1', Date.now() + 2_000);
      return errorReply(503, 'upstream_unavailable', 'down');
    });
    const runner = vigil.startVigil(['run', '--pool', 'pool-1', '--agent', 'agent-a', '--follow', '--endpoint', fake.url, '--heartbeat', '0.5', '--grace', '1', '--', 'true']);
    // Act: once it claims again, the operator stops it
    await pollUntil(
      async () => {
        if (fake.seen.filter((s) => s.path.endsWith('/claims')).length >= 2) return true;
        const ended = await Promise.race([runner.done, Promise.resolve(undefined)]);
        if (ended) throw new Error(`the runner exited instead of following the pool:\n${ended.transcript}`);
        return undefined;
      },
      { what: () => `a second claim; calls so far: ${fake.seen.map((s) => `${s.method} ${s.path}`).join(', ')}`, timeoutMs: 40_000 },
    );
    runner.child.kill('SIGINT');
    const result = await runner.done;
    // Assess
    expect(result.code, result.transcript).toBe(3);
    expect(result.transcript).toMatch(/item-1.*not delivered/);
  });
});
