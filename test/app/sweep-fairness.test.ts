import { describe, expect, it } from 'vitest';
import { DynamoJobStore } from '../../shared/adapters/aws/dynamo-job-store.js';
import { TIMER_SHARDS } from '../../shared/adapters/aws/jobs-table.js';
import { SWEEP_INTERVAL_MS } from '../../shared/app/detection-bound.js';
import { POISON_AFTER_FAILING_SWEEPS, SWEEP_RETRY_MS, sweepJobTimers } from '../../shared/app/sweep-job-timers.js';
import { at } from '../support/fixtures.js';
import { submit, useTestManager } from './support/test-manager.js';
import { idsInShard } from './support/ids-in-shard.js';
import { TimeoutWriteFaults } from './support/timeout-write-faults.js';

/** The real store, except that the timeouts of poisoned jobs are never written (a fire that keeps failing). */
const poisoned = new TimeoutWriteFaults();

/**
 * a sweep batch of timers that keep failing in shard 0 must not hide a lost wake-up in
 * a later shard. Failing items back off (past the next sweeps once they have failed in several in
 * a row); every shard gets its share of each sweep.
 */
describe('the backstop sweep is fair across shards and backs off failing wake-ups (dynalite)', () => {
  const m = useTestManager({ store: (doc, tableName) => poisoned.wrap(new DynamoJobStore(doc, tableName)) });
  const job = (jobId: string) => ({ jobId, timeoutSeconds: 10, workflows: [{ workflowId: 'wf-1', workerId: 'worker-a' }] });

  it('a batch-full of always-failing overdue wake-ups in shard 0 does not starve an overdue job in another shard', async () => {
    // Prepare: more failing jobs in shard 0 than one sweep takes, then one lost wake-up in the last shard
    const batch = TIMER_SHARDS * 2;
    const failing = idsInShard(0, batch + 4, 'job-failing');
    for (const jobId of failing) {
      poisoned.inject(jobId, 'fail');
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

  it('a wake-up whose tries keep failing is tried in every sweep until it has failed in three in a row, then skips sweeps, doubling', async () => {
    // Prepare: a job whose timeout can never be written, due since at(10); sweeps every minute from at(60)
    const [failing] = idsInShard(0, 1, 'job-backoff');
    if (!failing) throw new Error('no id in shard 0');
    poisoned.inject(failing, 'fail');
    await submit(m, job(failing));

    // Act
    const triesPerSweep: number[] = [];
    const dueAfter: number[] = [];
    for (let sweep = 0; sweep < 13; sweep++) {
      m.clock.set(at(60) + sweep * SWEEP_INTERVAL_MS);
      const before = poisoned.triesOf(failing);
      await sweepJobTimers(m.deps);
      triesPerSweep.push(poisoned.triesOf(failing) - before);
      dueAfter.push((await m.getJob(failing)).timerDueAt ?? 0);
    }

    // Assess: two tries in each sweep it is due for; 30 s after each of the first two failing sweeps
    // (due for the next one), then 60 s, 120 s, 240 s after the sweep: skipping 1, 2, then 4 sweeps.
    expect(POISON_AFTER_FAILING_SWEEPS).toBe(3);
    expect(triesPerSweep).toEqual([2, 2, 2, 0, 2, 0, 0, 2, 0, 0, 0, 0, 2]);
    expect(dueAfter.slice(0, 5)).toEqual([at(60) + SWEEP_RETRY_MS, at(120) + SWEEP_RETRY_MS, at(180) + 60_000, at(180) + 60_000, at(300) + 120_000]);
    expect((await m.getJob(failing)).status).toBe('RUNNING');
  });
});
