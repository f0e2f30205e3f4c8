import { describe, expect, it } from 'vitest';
import { LocalEventNetwork } from '../../../../shared/adapters/local/local-event-network.js';

/** The local event network keeps a bounded recent window of published events, not all of them. */
describe('local event network: published events', () => {
  it('keeps only the most recent events, oldest first, while counting every event', async () => {
    // Prepare
    const network = new LocalEventNetwork(() => 0.5, { recentEventsCapacity: 3 });
    const bus = network.busFor('eu-west-1');

    // Act
    for (let i = 0; i < 5; i++) await bus.publish([{ detailType: i % 2 ? 'JobTimedOut' : 'JobProgressReport', detail: { jobId: `job-${i}` } }]);
    network.close();

    // Assess
    expect(network.published.map(({ event }) => event.detail['jobId'])).toEqual(['job-2', 'job-3', 'job-4']);
    expect(network.publishedCounts()).toEqual({ JobProgressReport: 3, JobTimedOut: 2 });
  });

  it('stays within its capacity over a long run', async () => {
    // Prepare
    const network = new LocalEventNetwork(() => 0.5, { recentEventsCapacity: 100 });
    const bus = network.busFor('eu-west-1');

    // Act
    for (let i = 0; i < 1_000; i++) await bus.publish([{ detailType: 'JobTimedOut', detail: { jobId: `job-${i}` } }]);
    network.close();

    // Assess
    expect(network.published).toHaveLength(100);
    expect(network.published.at(-1)?.event.detail['jobId']).toBe('job-999');
    expect(network.publishedCounts()).toEqual({ JobTimedOut: 1_000 });
  });
});
