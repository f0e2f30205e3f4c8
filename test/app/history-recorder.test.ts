import { describe, expect, it } from 'vitest';
import { jobViews } from '../../shared/app/history/record-history.js';
import type { HistoryStore } from '../../shared/ports/history-store.js';
import type { Telemetry } from '../../shared/ports/telemetry.js';
import { takeOverJob } from '../../shared/domain/take-over-job.js';
import { at, context, runningJob } from '../support/fixtures.js';

const failingStore: HistoryStore = {
  append: () => Promise.reject(new Error('throttled')),
  read: () => Promise.reject(new Error('unused')),
  putListing: () => Promise.reject(new Error('throttled')),
  listJobs: () => Promise.reject(new Error('unused')),
};

describe('the history recorder', () => {
  it('a failing history write is logged and answered false, never failing the decision that was already saved', async () => {
    // Prepare
    const warnings: Array<Record<string, unknown> | undefined> = [];
    const telemetry: Telemetry = { info: () => undefined, error: () => undefined, metric: () => undefined, warn: (_message, attributes) => warnings.push(attributes) };
    const job = runningJob();
    const { state: taken } = takeOverJob(job, context(at(1)));
    // Act
    await expect(jobViews(failingStore, telemetry).record(job, taken, at(1))).resolves.toBe(false);
    // Assess
    expect(warnings).toEqual([{ jobId: 'job-1', error: 'Error: throttled' }]);
  });
});
