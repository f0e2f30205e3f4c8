import { describe, expect, it } from 'vitest';
import { LocalEventNetwork, type DeliveryFailure } from '../../../../shared/adapters/local/local-event-network.js';
import { VirtualClock } from '../../../../shared/adapters/local/virtual-clock.js';
import { JobGlobalTimeout } from '../../../../shared/events/job-global-timeout.js';

const START = 1_900_000_000_000;

// Events review: a consumer that failed was retried, then its event was dropped without a trace. On
// AWS each failure is an error in the function's log (alarmed) and the event ends in an alarmed DLQ;
// in the local cloud neither the error nor the loss was reported anywhere.
describe('local event network: a consumer that keeps failing', () => {
  it('reports every failed delivery with its error, and says when it gives the event up', async () => {
    // Prepare
    const clock = new VirtualClock(START);
    const failures: DeliveryFailure[] = [];
    const network = new LocalEventNetwork(() => 0.5, { scheduler: clock, onDeliveryFailed: (failure) => failures.push(failure) });
    network.consume('eu-west-1', async () => {
      throw new Error('on-gate-decision does not handle this');
    });
    const decision = JobGlobalTimeout.build({ jobId: 'job-1', region: 'eu-west-1', reason: 'timeout', timedOutAt: new Date(START).toISOString(), fenceToken: 1 });

    // Act
    await network.busFor('gate').publish([decision]);
    await clock.advance(60_000);
    network.close();

    // Assess
    expect(failures.length).toBeGreaterThan(1);
    expect(failures.map((failure) => failure.givenUp)).toEqual([...Array<boolean>(failures.length - 1).fill(false), true]);
    expect(failures.at(-1)).toMatchObject({
      origin: 'gate',
      target: 'eu-west-1',
      attempt: failures.length,
      event: { 'detail-type': 'JobGlobalTimeout', detail: { jobId: 'job-1' } },
    });
    expect(String(failures.at(-1)?.error)).toContain('on-gate-decision does not handle this');
  });

  it('reports nothing for a delivery that succeeds on a retry, beyond the attempts that failed', async () => {
    // Prepare
    const clock = new VirtualClock(START);
    const failures: DeliveryFailure[] = [];
    const network = new LocalEventNetwork(() => 0.5, { scheduler: clock, onDeliveryFailed: (failure) => failures.push(failure) });
    let calls = 0;
    network.consume('gate', async () => {
      if (++calls === 1) throw new Error('store busy');
    });

    // Act
    await network.busFor('eu-west-1').publish([{ detailType: 'JobProgressReport', detail: { jobId: 'job-1' } }]);
    await clock.advance(60_000);
    network.close();

    // Assess
    expect(calls).toBe(2);
    expect(failures).toEqual([expect.objectContaining({ attempt: 1, givenUp: false })]);
  });
});
