import { afterEach, describe, expect, it, vi } from 'vitest';
import { claim, startWorkflow } from '../../shared/sdk/index.js';
import { holdingVigil, useFakeSdkTimers } from '../support/holding-vigil.js';

/**
 * A Vigil (or a proxy before it) answering a deadline the SDK cannot read as a time made it NaN: the
 * deadline watch armed a timer of NaN ms, which Node fires after 1 ms, asked Vigil, armed it again,
 * and so called Vigil as fast as it answered: thousands of billed calls a second. A time that cannot
 * be read is now no news: the last deadline read stands.
 */
describe('a deadline the SDK cannot read', () => {
  afterEach(() => {
    vi.useRealTimers();
    vi.unstubAllGlobals();
  });

  const HOUR = 3_600_000;
  const iso = (ms: number) => new Date(ms).toISOString();

  it('an agent told one keeps beating at its cadence, and keeps the deadline it read before', async () => {
    // Prepare: the claim names a deadline an hour away; every heartbeat answers one that is not a time
    useFakeSdkTimers();
    const vigil = holdingVigil(({ path }) =>
      path.endsWith('/claims')
        ? { itemId: 'item-1', attempt: 1, token: 'tok', input: null, deadlineAt: iso(HOUR), commands: [], checkpointIntervalSeconds: 3_600, lastCheckpoint: null }
        : { action: 'continue', deadlineAt: 'soon', terminateBy: 'later' },
    );
    const attempt = await claim({ endpoint: vigil.endpoint, heartbeatIntervalMs: 1_000 }, 'pool-1', 'agent-a');
    if (!attempt) throw new Error('nothing claimed');
    // Act
    await attempt.heartbeat();
    await vi.advanceTimersByTimeAsync(5_000);
    attempt.stop();
    // Assess: a beat a second (with a NaN deadline: one every millisecond)
    expect(vigil.calls.filter((call) => call.path.endsWith('/heartbeat')).length).toBeLessThanOrEqual(7);
    expect(attempt.deadlineAtMs).toBe(HOUR);
    expect(attempt.signal.aborted).toBe(false);
  });

  it('a workflow told one reports at its cadence, and keeps the deadline it read before', async () => {
    // Prepare: the first report answers a deadline an hour away; every later one a deadline that is not a time
    useFakeSdkTimers();
    const vigil = holdingVigil(({ at }) => ({ status: 'RUNNING', cancel: false, deadlineAt: at === 0 ? iso(HOUR) : 'soon' }));
    // A beat every 2.5 s (a 10 s stuck threshold)
    const work = await startWorkflow({ endpoint: vigil.endpoint, jobId: 'j', workflowId: 'wf', workerId: 'w', token: 't', stuckThresholdSeconds: 10 });
    // Act
    await vi.advanceTimersByTimeAsync(10_000);
    work.stop();
    // Assess: the first report and a beat every 2.5 s
    expect(vigil.calls.length).toBeLessThanOrEqual(5);
    expect(work.deadlineAtMs).toBe(HOUR);
    expect(work.signal.aborted).toBe(false);
  });
});
