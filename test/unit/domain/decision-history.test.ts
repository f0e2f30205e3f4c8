import { describe, expect, it } from 'vitest';
import type { GateJob } from '../../../shared/domain/gate/gate-job.js';
import { gateHistoryEntries } from '../../../shared/domain/history/gate-history.js';
import { historySlot, MAX_TAKEOVERS, SAMPLE_BUCKETS, type HistoryEntry } from '../../../shared/domain/history/history-entry.js';
import { jobHistoryEntries } from '../../../shared/domain/history/job-history.js';
import { gateJobListing, jobListing, listingChanged } from '../../../shared/domain/history/job-listing.js';
import { timeOutJob } from '../../../shared/domain/finish-job.js';
import { takeOverJob } from '../../../shared/domain/take-over-job.js';
import { recordWorkerExtension } from '../../../shared/domain/worker-extensions.js';
import { at, context, gateCoordinatedJob, runningJob } from '../../support/fixtures.js';

/** A gate job of two regions, both running, nothing heard yet. */
const runningGateJob: GateJob = {
  jobId: 'g',
  version: 1,
  submissionDigest: 'd',
  submittedAt: at(0),
  timeoutSeconds: 60,
  targetRegions: ['eu-west-1', 'us-east-1'],
  dcStatus: { 'eu-west-1': 'running', 'us-east-1': 'running' },
  dcLastProgress: {},
  dcLastReportAt: {},
  dcFenceToken: { 'eu-west-1': 1, 'us-east-1': 1 },
  dcTotalExtensions: {},
  dcMaxExtension: {},
  dcWorkersWithExtensions: {},
  dcTimeoutReported: {},
  globallyTimedOut: false,
  timeoutFenceToken: 0,
};

describe('decision history read off each saved decision', () => {
  it('an extension: who, how much, and the deadline it moved from and to', () => {
    // Prepare
    const job = runningJob({ timeoutSeconds: 60 });
    const { state: extended } = recordWorkerExtension(job, [0], { workerIndex: 0, epoch: 0, count: 1, seconds: 30 }, false, context(at(10)));
    // Act
    const entries = jobHistoryEntries(job, extended, at(10));
    // Assess
    expect(entries).toEqual([
      { kind: 'extension', at: at(10), workerIndex: 0, seconds: 30, fromDeadlineAt: at(60), toDeadlineAt: at(90) },
    ]);
  });

  it('a takeover carries the old and the new fence token', () => {
    const job = runningJob({ fenceToken: 3 });
    const { state: taken } = takeOverJob(job, context(at(5)));
    expect(jobHistoryEntries(job, taken, at(5))).toEqual([{ kind: 'takeover', at: at(5), fromFenceToken: 3, toFenceToken: 4 }]);
  });

  it('a local-authority timeout is a final entry with its reason', () => {
    const job = runningJob();
    const { state: ended } = timeOutJob(job, 'stuck', context(at(130)));
    expect(jobHistoryEntries(job, ended, at(130))).toEqual([{ kind: 'final', at: at(130), status: 'TIMED_OUT', reason: 'stuck' }]);
  });

  it('a gate-coordinated region records its local timeout, its report to the gate and the gate decision arriving', () => {
    const job = gateCoordinatedJob();
    const reported = { ...job, tracking: { ...job.tracking, locallyTimedOut: true, timeoutReason: 'timeout' as const, timeoutReportedAt: at(60) } };
    expect(jobHistoryEntries(job, reported, at(60)).map((e) => e.kind)).toEqual(['local_timeout', 'timeout_report']);
    const decided = { ...reported, tracking: { ...reported.tracking, globallyTimedOut: true } };
    expect(jobHistoryEntries(reported, decided, at(61))).toEqual([
      { kind: 'gate_decision', at: at(61), decision: 'global_timeout', reason: 'global_timeout', fenceToken: 1 },
    ]);
  });

  it('a decision that changed nothing the history shows records nothing', () => {
    const job = runningJob();
    expect(jobHistoryEntries(job, { ...job, version: job.version + 1, timerDueAt: at(99) }, at(1))).toEqual([]);
  });

  it('the gate records reports heard, a takeover seen, its decision and each region confirming', () => {
    const before = runningGateJob;
    const after: GateJob = {
      ...before,
      dcLastReportAt: { 'eu-west-1': at(9) },
      dcLastProgress: { 'eu-west-1': at(8) },
      dcFenceToken: { 'eu-west-1': 2, 'us-east-1': 1 },
      dcStatus: { 'eu-west-1': 'running', 'us-east-1': 'timed_out' },
      dcTimeoutReported: { 'us-east-1': 'stuck' },
      globallyTimedOut: true,
      timeoutReason: 'dc_timeout_reported',
      timeoutFenceToken: 1,
      decidedAt: at(10),
    };
    expect(gateHistoryEntries(before, after, at(10))).toEqual([
      { kind: 'gate_report', at: at(10), region: 'eu-west-1', lastProgressAt: at(8) },
      { kind: 'takeover', at: at(10), region: 'eu-west-1', fromFenceToken: 1, toFenceToken: 2 },
      { kind: 'timeout_report', at: at(10), region: 'us-east-1', reason: 'stuck' },
      { kind: 'region_confirmed', at: at(10), region: 'us-east-1', status: 'timed_out' },
      { kind: 'gate_decision', at: at(10), decision: 'global_timeout', reason: 'dc_timeout_reported', fenceToken: 1 },
      { kind: 'final', at: at(10), status: 'TIMED_OUT', reason: 'dc_timeout_reported' },
    ]);
    expect(listingChanged(gateJobListing(before), gateJobListing(after))).toBe(true);
  });

  it("a gate job's CANCELLED row is provisional while its regions are still ending, final once they all have", () => {
    // Prepare
    const cancelling: GateJob = { ...runningGateJob, cancelRequested: {}, dcStatus: { 'eu-west-1': 'cancelled', 'us-east-1': 'running' } };
    const ended: GateJob = { ...cancelling, dcStatus: { 'eu-west-1': 'cancelled', 'us-east-1': 'cancelled' } };
    // Act
    const rows = [runningGateJob, cancelling, ended].map(gateJobListing);
    // Assess
    expect(rows.map((row) => [row.status, row.provisional])).toEqual([
      ['RUNNING', undefined],
      ['CANCELLED', true],
      ['CANCELLED', undefined],
    ]);
    expect(listingChanged(rows[1]!, rows[2]!)).toBe(true);
  });

  it("a region samples its reports to the gate: only the first one in a sample bucket is recorded", () => {
    // 60 s job: 1 s buckets
    const job = gateCoordinatedJob({ timeoutSeconds: 60 });
    const reported = (from: typeof job, lastReportAt: number) => ({ ...from, tracking: { ...from.tracking, lastReportAt } });
    const first = reported(job, at(10.2));
    const sameBucket = reported(first, at(10.7));
    const nextBucket = reported(sameBucket, at(11.1));
    expect(jobHistoryEntries(job, first, at(10.2)).map((e) => e.kind)).toEqual(['gate_report']);
    expect(jobHistoryEntries(first, sameBucket, at(10.7))).toEqual([]);
    expect(jobHistoryEntries(sameBucket, nextBucket, at(11.1)).map((e) => e.kind)).toEqual(['gate_report']);
  });

  it("the gate samples a region's reports: only its first report in a sample bucket is recorded", () => {
    // 60 s job: 1 s buckets
    const heard = (job: GateJob, reportAt: number): GateJob => ({ ...job, dcLastReportAt: { ...job.dcLastReportAt, 'eu-west-1': reportAt } });
    const first = heard(runningGateJob, at(10.2));
    const sameBucket = heard(first, at(10.7));
    const nextBucket = heard(sameBucket, at(11.1));
    expect(gateHistoryEntries(runningGateJob, first, at(10.2)).map((e) => e.kind)).toEqual(['gate_report']);
    expect(gateHistoryEntries(first, sameBucket, at(10.7))).toEqual([]);
    expect(gateHistoryEntries(sameBucket, nextBucket, at(11.1)).map((e) => e.kind)).toEqual(['gate_report']);
  });

  it('the list row changes with the status and the deadline, not with every write', () => {
    const job = runningJob();
    const { state: extended } = recordWorkerExtension(job, [0], { workerIndex: 0, epoch: 0, count: 1, seconds: 30 }, false, context(at(10)));
    expect(listingChanged(jobListing(job), jobListing({ ...job, version: 7 }))).toBe(false);
    expect(listingChanged(jobListing(job), jobListing(extended))).toBe(true);
  });
});

describe('history slots bound what one job keeps', () => {
  const window = { startedAt: at(0), timeoutSeconds: 600 };
  const sample = (seconds: number): HistoryEntry => ({ kind: 'heartbeat', at: at(seconds), workflowId: 'wf', workerId: 'w' });

  it('samples share a slot per bucket, and none are kept past twice the deadline', () => {
    const slots = new Set<string | undefined>();
    for (let s = 0; s < 100_000; s += 0.5) slots.add(historySlot(sample(s), window));
    slots.delete(undefined);
    expect(slots.size).toBe(2 * SAMPLE_BUCKETS);
  });

  it('the same fact lands in the same slot (a retried write overwrites itself)', () => {
    const entry: HistoryEntry = { kind: 'extension', at: at(3), workerId: 'w', seconds: 30, fromDeadlineAt: at(600), toDeadlineAt: at(630) };
    expect(historySlot(entry, window)).toBe(historySlot({ ...entry }, window));
  });

  it(`takeovers past fence ${MAX_TAKEOVERS} are not kept; decisions sort before samples and extensions`, () => {
    expect(historySlot({ kind: 'takeover', at: at(1), fromFenceToken: MAX_TAKEOVERS, toFenceToken: MAX_TAKEOVERS + 1 }, window)).toBeUndefined();
    const final = historySlot({ kind: 'final', at: at(1), status: 'TIMED_OUT' }, window) ?? '';
    const extension = historySlot({ kind: 'extension', at: at(1), workerId: 'w', seconds: 1, fromDeadlineAt: 0, toDeadlineAt: 1 }, window) ?? '';
    expect(final < (historySlot(sample(1), window) ?? '')).toBe(true);
    expect((historySlot(sample(1), window) ?? '') < extension).toBe(true);
  });
});
