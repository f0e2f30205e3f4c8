import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import type { DynamoJobStore } from '../../shared/adapters/aws/dynamo-job-store.js';
import { at } from '../support/fixtures.js';
import { storePausedAfterGrantRead } from './support/grant-read-pausing-store.js';
import { useTestManager } from './support/test-manager.js';

/**
 * A worker's grants on a job whose id an earlier job had, whose record of the worker is still there:
 * any number of them, each a grant of any budget and number (late retries among them) made through
 * any of the worker's workflow indexes, and each either paused between its read of the record and its
 * write while the next runs whole (when it reads the record), or done before the next starts. Whatever the order, every grant is
 * answered the one worker index the record holds (the job's grants of the worker stay one, which its
 * retirement finds), and the record holds the newest grant.
 */

interface Caller {
  epoch: number;
  count: number;
  workerIndex: number;
  /** The next caller runs whole between this one's read of the record and its write. */
  pausedWhileNextRuns: boolean;
}

const caller: fc.Arbitrary<Caller> = fc.record({
  epoch: fc.integer({ min: 1, max: 3 }),
  count: fc.integer({ min: 1, max: 4 }),
  workerIndex: fc.integer({ min: 0, max: 4 }),
  pausedWhileNextRuns: fc.boolean(),
});

const newer = (a: Pick<Caller, 'epoch' | 'count'>, b: Pick<Caller, 'epoch' | 'count'>) => a.epoch > b.epoch || (a.epoch === b.epoch && a.count > b.count);

describe("grants racing on a job id's earlier record (dynalite, property)", () => {
  const m = useTestManager();

  it('every grant is answered the index the record holds, and the record holds the newest grant', async () => {
    let run = 0;
    await fc.assert(
      fc.asyncProperty(fc.array(caller, { minLength: 2, maxLength: 4 }), async (callers) => {
        // Prepare: the earlier job's record of the worker under this run's job id
        const jobId = `job-${run++}`;
        await m.jobs.recordGrant({ jobId, incarnation: 'earlier', workerId: 'worker-a', workerIndex: 9, epoch: 5, count: 9, seconds: 58, grantedAt: at(0) });
        const answers: number[] = [];
        const grant = (store: DynamoJobStore, c: Caller) =>
          store.recordGrant({ jobId, incarnation: 'now', workerId: 'worker-a', workerIndex: c.workerIndex, epoch: c.epoch, count: c.count, seconds: c.count * 10, grantedAt: at(10) });
        const runFrom = async (i: number): Promise<void> => {
          const c = callers[i];
          if (!c) return;
          const paused = storePausedAfterGrantRead(m);
          // A grant whose update went through reads no record: the next one then runs after it.
          let nextRan = false;
          if (c.pausedWhileNextRuns) paused.afterNextGrantRead(() => ((nextRan = true), runFrom(i + 1)));
          answers.push(await grant(paused.jobs, c));
          if (!nextRan) await runFrom(i + 1);
        };
        // Act
        await runFrom(0);
        // Assess
        const records = await m.jobs.findGrantRecords(jobId, 'now');
        expect(records).toHaveLength(1);
        const [stored] = records;
        expect(answers.every((index) => index === stored?.workerIndex)).toBe(true);
        const newest = callers.reduce((best, c) => (newer(c, best) ? c : best));
        expect(stored).toMatchObject({ epoch: newest.epoch, count: newest.count });
      }),
      { numRuns: 40 },
    );
  });
});
