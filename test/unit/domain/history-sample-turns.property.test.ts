import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { sampleBucket } from '../../../shared/domain/history/history-entry.js';
import { WorkflowMark, type Workflow } from '../../../shared/domain/job.js';
import { progressWrites } from '../../../shared/domain/record-progress.js';
import { runningJob, T0, workflowsOf } from '../../support/fixtures.js';

/**
 * A job's history keeps one sample per kind per bucket, so its workflows take turns writing it:
 * random reports from a job's workflows (some already finished) write at most one sample per
 * bucket between them, and a bucket gets its sample whenever the workflow whose turn it is stores
 * its first call there (a heartbeat within the coalescing window is not stored, nor sampled).
 */
describe('history samples: the workflows of a job take turns', () => {
  it('at most one sample per bucket, and one whenever the turn-holder stores its first call in it', () => {
    const scenario = fc.record({
      workflows: fc.integer({ min: 1, max: 6 }),
      finished: fc.array(fc.boolean(), { minLength: 6, maxLength: 6 }),
      reports: fc.array(fc.record({ workflow: fc.nat(), afterMs: fc.integer({ min: 0, max: 1_500 }), progress: fc.boolean() }), { maxLength: 300 }),
    });
    fc.assert(
      fc.property(scenario, ({ workflows: count, finished, reports }) => {
        // Prepare: a 240 s job (2 s buckets); at least one workflow still active
        const workers = Array.from({ length: count }, (_, i) => `worker-${i}`);
        const marks = workers.map((_, i) => (finished[i] && i > 0 ? WorkflowMark.completed : WorkflowMark.active)).join('');
        const job = { ...runningJob({ workers, timeoutSeconds: 240, stuckThresholdSeconds: 600 }), workflowMarks: marks };
        const active = workers.map((_, i) => i).filter((i) => marks[i] === WorkflowMark.active);
        const stored = new Map<number, Workflow>(workflowsOf(job, workers).map((w) => [w.index, w]));
        const window = { startedAt: T0, timeoutSeconds: 240 };
        const samplesByBucket = new Map<number, number>();
        const turnHolderStored = new Set<number>();
        let now = T0;

        // Act: each report as the real path stores it (the heartbeat or advance it writes)
        for (const [i, report] of reports.entries()) {
          now += report.afterMs;
          const index = active[report.workflow % active.length] ?? 0;
          const workflow = stored.get(index) as Workflow;
          const bucket = sampleBucket(now, window) ?? -1;
          const heardAt = Math.max(workflow.lastHeartbeatAt ?? -Infinity, workflow.lastProgressAt ?? -Infinity);
          const writes = progressWrites(job, workflow, report.progress ? { progress: (i + 1) / (reports.length + 1) } : {}, now);
          const firstStoredInBucket = (writes.advance !== undefined || writes.heartbeat) && sampleBucket(heardAt, window) !== bucket;
          if (firstStoredInBucket && active[bucket % active.length] === index) turnHolderStored.add(bucket);
          if (writes.sample) samplesByBucket.set(bucket, (samplesByBucket.get(bucket) ?? 0) + 1);
          if (writes.advance) stored.set(index, { ...workflow, ...writes.advance, lastProgressAt: now });
          else if (writes.heartbeat) stored.set(index, { ...workflow, lastHeartbeatAt: now });
        }

        // Assess
        for (const samples of samplesByBucket.values()) expect(samples).toBe(1);
        for (const bucket of turnHolderStored) if (bucket >= 0) expect(samplesByBucket.get(bucket)).toBe(1);
      }),
      { numRuns: 200 },
    );
  });
});
