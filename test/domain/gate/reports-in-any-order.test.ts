import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import type { GateJob } from '../../../shared/domain/gate/gate-job.js';
import { isRegionFinal } from '../../../shared/domain/gate/gate-job.js';
import { gateJobStatus } from '../../../shared/domain/gate/gate-job-status.js';
import { timeoutReasonKind } from '../../../shared/domain/gate/gate-timeout-cause.js';
import { onFinalStatus } from '../../../shared/domain/gate/on-final-status.js';
import { onLeaderTransfer } from '../../../shared/domain/gate/on-leader-transfer.js';
import { onProgressReport } from '../../../shared/domain/gate/on-progress-report.js';
import { onTimeoutReport } from '../../../shared/domain/gate/on-timeout-report.js';
import { markRegionSubmitted } from '../../../shared/domain/gate/region-submission.js';
import { startGateJob } from '../../../shared/domain/gate/start-gate-job.js';
import {
  REGIONS, T0, finalStatus, leaderTransfer, policy, progressReport, seconds, timeoutReport,
} from './gate-fixtures.js';

type Message =
  | { kind: 'submitted'; region: string; fenceToken: number }
  | { kind: 'progress'; report: ReturnType<typeof progressReport> }
  | { kind: 'timeout'; report: ReturnType<typeof timeoutReport> }
  | { kind: 'transfer'; transfer: ReturnType<typeof leaderTransfer> }
  | { kind: 'final'; final: ReturnType<typeof finalStatus> };

/** Every message arrives at the same moment, well before the global deadline: order is the only variable. */
const NOW = T0 + seconds(175);

function deliver(job: GateJob, message: Message): GateJob {
  switch (message.kind) {
    case 'submitted':
      return markRegionSubmitted(job, message.region, message.fenceToken).state;
    case 'progress':
      return onProgressReport(job, message.report, NOW, policy).state;
    case 'timeout':
      return onTimeoutReport(job, message.report, NOW, policy).state;
    case 'transfer':
      return onLeaderTransfer(job, message.transfer).state;
    case 'final':
      return onFinalStatus(job, message.final, NOW, policy).state;
  }
}

const freshGateJob = (): GateJob =>
  startGateJob({ jobId: 'job-1', timeoutSeconds: 3_600, datacenters: Object.fromEntries(REGIONS.map((r) => [r, {}])) }, 'digest', T0).state;

interface ReportShape {
  gapSeconds: number;
  lagSeconds: number;
  totalExtensions: number;
  workers: number;
}

const reportShape: fc.Arbitrary<ReportShape> = fc.record({
  gapSeconds: fc.integer({ min: 1, max: 20 }),
  lagSeconds: fc.integer({ min: 0, max: 60 }),
  totalExtensions: fc.integer({ min: 0, max: 30 }),
  workers: fc.integer({ min: 0, max: 3 }),
});

/**
 * One region's history as its managers would produce it: reports with growing timestamps and a last
 * progress that never goes back, maybe a takeover (after which the new leader reports at least once),
 * and an ending. A region that timed out locally ends TIMED_OUT or not at all: a region that
 * completes after its timeout report would race the gate for real, and then order does matter.
 */
const regionHistory = (region: string) =>
  fc
    .record({
      before: fc.array(reportShape, { maxLength: 3 }),
      takeover: fc.boolean(),
      after: fc.array(reportShape, { minLength: 1, maxLength: 3 }),
      ending: fc.constantFrom('running', 'timeout_waiting', 'timed_out', 'completed', 'failed'),
      reason: fc.constantFrom('timeout' as const, 'stuck' as const),
    })
    .map(({ before, takeover, after, ending, reason }): Message[] => {
      const messages: Message[] = [{ kind: 'submitted', region, fenceToken: 1 }];
      let sentAt = T0;
      let lastProgressAt = T0;
      const report = (shape: ReportShape, fenceToken: number): Message => {
        sentAt += seconds(shape.gapSeconds);
        lastProgressAt = Math.max(lastProgressAt, sentAt - seconds(shape.lagSeconds));
        return {
          kind: 'progress',
          report: progressReport(region, { sentAt, lastProgressAt, fenceToken, totalExtensions: shape.totalExtensions, maxExtension: shape.totalExtensions, workers: shape.workers }),
        };
      };
      for (const shape of before) messages.push(report(shape, 1));
      const latest = takeover ? 2 : 1;
      if (takeover) {
        if (ending === 'timeout_waiting' || ending === 'timed_out') messages.push({ kind: 'timeout', report: timeoutReport(region, reason, 1) });
        messages.push({ kind: 'transfer', transfer: leaderTransfer(region, 2) });
        for (const shape of after) messages.push(report(shape, 2));
      }
      if (ending === 'timeout_waiting' || ending === 'timed_out') messages.push({ kind: 'timeout', report: timeoutReport(region, reason, latest) });
      if (ending === 'timed_out') messages.push({ kind: 'final', final: finalStatus(region, 'TIMED_OUT', { fenceToken: latest, timeoutReason: 'global_timeout' }) });
      if (ending === 'completed') messages.push({ kind: 'final', final: finalStatus(region, 'COMPLETED', { fenceToken: latest }) });
      if (ending === 'failed') messages.push({ kind: 'final', final: finalStatus(region, 'FAILED', { fenceToken: latest }) });
      return messages;
    });

const histories = fc
  .tuple(...REGIONS.map(regionHistory))
  .map((perRegion) => [...perRegion.flat(), { kind: 'progress', report: progressReport('sa-east-1', { sentAt: T0, lastProgressAt: T0 }) } as Message]);

/** Each message one to three times, in any order. */
const deliveriesOf = (messages: Message[]) =>
  fc
    .array(fc.integer({ min: 1, max: 3 }), { minLength: messages.length, maxLength: messages.length })
    .map((copies) => messages.flatMap((message, i) => Array.from({ length: copies[i] ?? 1 }, () => message)))
    .chain((copies) => fc.shuffledSubarray(copies, { minLength: copies.length, maxLength: copies.length }));

/**
 * What must not depend on delivery: the decision, the timer, and per region its status and token;
 * for a region still running also what the gate knows of it. A region that ended keeps only its
 * ending: reports that arrive after it are ignored by design, so its progress fields may differ.
 * Which region's report caused a `dc_timeout` is the first one to arrive, so only the kind is compared.
 */
function whatMatters(job: GateJob) {
  return {
    status: gateJobStatus(job),
    globallyTimedOut: job.globallyTimedOut,
    timeoutReasonKind: job.timeoutReason === undefined ? undefined : timeoutReasonKind(job.timeoutReason),
    timeoutFenceToken: job.timeoutFenceToken,
    decidedAt: job.decidedAt,
    timerDueAt: job.timerDueAt,
    regions: job.targetRegions.map((region) =>
      isRegionFinal(job, region)
        ? { region, status: job.dcStatus[region], fenceToken: job.dcFenceToken[region] }
        : {
            region,
            status: job.dcStatus[region],
            fenceToken: job.dcFenceToken[region],
            lastProgress: job.dcLastProgress[region],
            lastReportAt: job.dcLastReportAt[region],
            totalExtensions: job.dcTotalExtensions[region],
            maxExtension: job.dcMaxExtension[region],
            workersWithExtensions: job.dcWorkersWithExtensions[region],
            timeoutReported: job.dcTimeoutReported[region],
          },
    ),
  };
}

describe('duplicates and reordering change nothing that matters', () => {
  it('property: any order of any duplicates of the reports ends in the state of the in-order, once-each delivery', () => {
    fc.assert(
      fc.property(
        histories.chain((messages) => fc.tuple(fc.constant(messages), deliveriesOf(messages))),
        ([messages, delivered]) => {
          const inOrder = messages.reduce(deliver, freshGateJob());
          const shuffled = delivered.reduce(deliver, freshGateJob());
          expect(whatMatters(shuffled)).toEqual(whatMatters(inOrder));
        },
      ),
      { numRuns: 400 },
    );
  });

  it('a report delivered twice is a no-op the second time: the same state object, no effects', () => {
    // Prepare
    const report = progressReport(REGIONS[0], { sentAt: T0 + seconds(20), lastProgressAt: T0 + seconds(18) });
    const once = onProgressReport(markRegionSubmitted(freshGateJob(), REGIONS[0], 1).state, report, NOW, policy).state;

    // Act
    const twice = onProgressReport(once, report, NOW, policy);

    // Assess
    expect(twice.state).toBe(once);
    expect(twice.effects).toEqual([]);
    expect(twice.ignored).toBe('duplicate');
  });
});
