import { describe, expect, it } from 'vitest';
import { DynamoJobStore } from '../../shared/adapters/aws/dynamo-job-store.js';
import { timerShardOf, TIMER_SHARDS } from '../../shared/adapters/aws/jobs-table.js';
import { SWEEP_RETRY_MS, sweepJobTimers } from '../../shared/app/sweep-job-timers.js';
import type { Job } from '../../shared/domain/job.js';
import { at } from '../support/fixtures.js';
import { submit, useTestManager } from './support/test-manager.js';

/** Job ids whose wake-ups land in `shard` of the timer index. */
function idsInShard(shard: number, count: number, prefix: string): string[] {
  const ids: string[] = [];
  for (let i = 0; ids.length < count; i++) if (timerShardOf(`${prefix}-${i}`) === String(shard)) ids.push(`${prefix}-${i}`);
  return ids;
}

const poisoned = new Set<string>();

/** The real store, except that writes of a poisoned job always fail (a fire that keeps failing). */
class PoisonedStore extends DynamoJobStore {
  override saveJob(job: Job, expectedVersion: number): Promise<Job> {
    if (poisoned.has(job.jobId) && job.status !== 'RUNNING') return Promise.reject(new Error(`injected write failure for ${job.jobId}`));
    return super.saveJob(job, expectedVersion);
  }
}

/**
 * a sweep batch of timers that keep failing in shard 0 must not hide a lost wake-up in
 * a later shard. Failing items back off; every shard gets its share of each sweep.
 */
describe('the backstop sweep is fair across shards and backs off failing wake-ups (dynalite)', () => {
  const m = useTestManager({ store: (doc, tableName) => new PoisonedStore(doc, tableName) });
  const job = (jobId: string) => ({ jobId, timeoutSeconds: 10, workflows: [{ workflowId: 'wf-1', workerId: 'worker-a' }] });

  it('a batch-full of always-failing overdue wake-ups in shard 0 does not starve an overdue job in another shard', async () => {
    // Prepare: more failing jobs in shard 0 than one sweep takes, then one lost wake-up in the last shard
    const batch = TIMER_SHARDS * 2;
    const failing = idsInShard(0, batch + 4, 'job-failing');
    for (const jobId of failing) {
      poisoned.add(jobId);
      await submit(m, job(jobId));
    }
    const [lost] = idsInShard(TIMER_SHARDS - 1, 1, 'job-lost');
    if (!lost) throw new Error('no id in the last shard');
    m.clock.set(at(5));
    await submit(m, job(lost));
    m.clock.set(at(60));

    // Act
    await sweepJobTimers(m.deps, { queryBatch: batch }).catch(() => undefined);

    // Assess
    expect((await m.getJob(lost)).status).toBe('TIMED_OUT');
  });

  it('a wake-up whose fire fails moves back, doubling, so the next sweeps reach the others', async () => {
    // Prepare
    const [failing] = idsInShard(0, 1, 'job-backoff');
    if (!failing) throw new Error('no id in shard 0');
    poisoned.add(failing);
    await submit(m, job(failing));

    // Act
    m.clock.set(at(60));
    await sweepJobTimers(m.deps).catch(() => undefined);
    const afterFirst = (await m.getJob(failing)).timerDueAt;
    m.clock.set(at(60) + SWEEP_RETRY_MS + 10_000);
    await sweepJobTimers(m.deps).catch(() => undefined);
    const afterSecond = (await m.getJob(failing)).timerDueAt;

    // Assess
    expect(afterFirst).toBe(at(60) + SWEEP_RETRY_MS);
    expect(afterSecond).toBe(at(60) + SWEEP_RETRY_MS + 10_000 + 2 * SWEEP_RETRY_MS);
    expect((await m.getJob(failing)).status).toBe('RUNNING');
  });
});
