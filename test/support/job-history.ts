import type { HistoryEntryJson, JobHistoryJson } from '../../shared/console/web/src/history-types.js';

/** A RUNNING job's decision history as the API answers it: started at `startedAtMs`, 100 s timeout, 30 s stuck threshold, 50 s in. */
export function jobHistory(startedAtMs: number, overrides: Partial<JobHistoryJson> = {}, entries: HistoryEntryJson[] = []): JobHistoryJson {
  const iso = (offsetSeconds: number) => new Date(startedAtMs + offsetSeconds * 1000).toISOString();
  return {
    jobId: 'job-1',
    source: 'us-east-1',
    status: 'RUNNING',
    strategy: 'local_authority',
    startedAt: iso(0),
    timeoutSeconds: 100,
    stuckThresholdSeconds: 30,
    lastProgressAt: iso(0),
    originalDeadlineAt: iso(100),
    effectiveDeadlineAt: iso(100),
    now: iso(50),
    truncated: false,
    entries: [{ kind: 'submitted', at: iso(0), deadlineAt: iso(100) }, ...entries],
    ...overrides,
  };
}
