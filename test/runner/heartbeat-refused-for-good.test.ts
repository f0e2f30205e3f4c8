import { join } from 'node:path';
import { describe, expect, it, vi } from 'vitest';
import { claimedReply, errorReply, useFakeVigil } from '../support/fake-vigil.js';
import { pollUntil } from '../support/poll.js';
import { processExists } from '../support/vigil-cli.js';

// Real processes.
vi.setConfig({ testTimeout: 60_000 });

/**
 * Scenario: `vigil run --pool P --agent A -- CMD` holds an item; from then on every heartbeat is refused
 * for good — 404 `item_not_found` / `pool_not_found` (the local cloud restarted on a wiped --data-dir,
 * or --worker-endpoint names another region) or 403 `invalid_token` (the attempt's token no longer
 * holds). The agent SDK treats only a 409 as "this attempt is over" (shared/sdk/agent.ts, `beat`), so
 * the runner just logs "heartbeat failed" every beat and keeps the child running until the claim's
 * deadline (here two minutes; an hour-long agent limit keeps it an hour; `per_command` with no template
 * has no deadline at all): work nobody will ever accept.
 *
 * Contract: unknown pool/item → 404, missing or wrong token → 401/403 ("Errors"); "every worker and
 * agent learns to stop". The workflow SDK already treats `job_not_found` and `invalid_token` as "the
 * work is over" (shared/sdk/workflow.ts, WORK_IS_OVER). Correct behaviour: a heartbeat refused with
 * 404 (pool/item not found) or 401/403 ends the attempt like a 409: the child's group is stopped
 * (SIGTERM, then SIGKILL after --grace) within a few seconds, not at the deadline.
 */
describe('vigil run: a heartbeat Vigil refuses for good stops the child', () => {
  const vigil = useFakeVigil();

  for (const refusal of [errorReply(404, 'item_not_found', "Pool 'pool-1' has no item 'item-1'."), errorReply(403, 'invalid_token', 'The token does not hold for this attempt.')]) {
    it(`heartbeat answered ${refusal.status} ${refusal.body.error.code}: the child is stopped within seconds, not at the deadline two minutes away`, async () => {
      // Prepare
      const fake = await vigil.fakeVigil((method, path, _body, seen) => {
        if (path.endsWith('/claims')) return seen.filter((s) => s.path.endsWith('/claims')).length === 1 ? claimedReply('item-1', Date.now() + 120_000) : { status: 204 };
        return refusal;
      });
      const pidFile = join(vigil.scratch(), `refused-${refusal.status}.pid`);
      const runner = vigil.startVigil(['run', '--pool', 'pool-1', '--agent', 'agent-a', '--endpoint', fake.url, '--grace', '1', '--heartbeat', '0.3', '--', 'sh', '-c', `echo $$ > ${pidFile}; while :; do sleep 0.2; done`]);
      const pid = await vigil.childPid(pidFile);
      // Act: let many heartbeats be refused
      const gone = await pollUntil(async () => (processExists(pid) ? undefined : true), { what: `child ${pid} to be stopped`, timeoutMs: 15_000, intervalMs: 100 }).catch(() => false);
      // Assess
      runner.child.kill('SIGKILL');
      const { transcript } = await runner.done;
      expect(gone, `child still running 15 s after Vigil started refusing every heartbeat with ${refusal.status}\n${transcript}`).toBe(true);
    });
  }
});
