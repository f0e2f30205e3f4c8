import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import type { GateJob } from '../../../shared/domain/gate/gate-job.js';
import { globalDeadline } from '../../../shared/domain/gate/global-deadline.js';
import { onProgressReport } from '../../../shared/domain/gate/on-progress-report.js';
import { markRegionSubmitted } from '../../../shared/domain/gate/region-submission.js';
import { startGateJob } from '../../../shared/domain/gate/start-gate-job.js';
import { secondsToMs } from '../../../shared/domain/time.js';
import { REGIONS, T0, policy, progressReport } from './gate-fixtures.js';

/** What one region says: the `deadlineAt` of each of its acceptances (first answer, resends), as ms from T0, and its extension total. */
const regionWords = fc.record({
  answers: fc.array(fc.integer({ min: -3_000_000, max: 9_000_000 }), { maxLength: 3 }),
  totalExtensions: fc.constantFrom(0, 1, 7.5, 30, 58.125, 116.25),
});
const jobs = fc.record({
  timeoutSeconds: fc.constantFrom(0.001, 1, 60, 300, 3_000),
  words: fc.tuple(regionWords, regionWords, regionWords),
});

function gateJobFrom(timeoutSeconds: number, words: ReadonlyArray<{ answers: number[]; totalExtensions: number }>, ignore?: string): GateJob {
  let job = startGateJob({ jobId: 'job-1', timeoutSeconds, datacenters: Object.fromEntries(REGIONS.map((r) => [r, {}])) }, 'digest', T0).state;
  REGIONS.forEach((region, index) => {
    const said = words[index];
    if (!said) return;
    for (const answer of said.answers) if (region !== ignore) job = markRegionSubmitted(job, region, 1, { deadlineAt: T0 + answer }).state;
    const at = T0 + 1;
    job = onProgressReport(job, progressReport(region, { sentAt: at, lastProgressAt: at, totalExtensions: said.totalExtensions }), at, policy).state;
  });
  return job;
}

/** The earliest start a region's answers gave (answer less the timeout), as the gate keeps it. */
const claimedStart = (answers: readonly number[], timeoutSeconds: number): number | undefined =>
  answers.length === 0 ? undefined : T0 + Math.min(...answers) - secondsToMs(timeoutSeconds);

/**
 * The rule in global-deadline.ts `regionStartedAt`, over any acceptances a region may send (late, very
 * late, before the gate's own start, repeated): condition 1 counts each region from its start, and a
 * region's word moves it only within `[seed formula, seed formula + timeoutSeconds]`.
 */
describe('property: a region’s start moves the global deadline only within one timeout of the seed’s formula', () => {
  it('never earlier than submittedAt + timeoutSeconds + the largest extension total, never later than that plus timeoutSeconds', () => {
    fc.assert(
      fc.property(jobs, ({ timeoutSeconds, words }) => {
        const job = gateJobFrom(timeoutSeconds, words);
        const largest = Math.max(...words.map((w) => w.totalExtensions));
        const seedFormula = T0 + secondsToMs(timeoutSeconds + largest);
        const deadline = globalDeadline(job);
        expect(deadline).toBeGreaterThanOrEqual(seedFormula);
        expect(deadline).toBeLessThanOrEqual(seedFormula + secondsToMs(timeoutSeconds));
      }),
    );
  });

  it('a region that started between the gate’s start and the job’s own deadline is never cut short: its deadline is within the global one', () => {
    fc.assert(
      fc.property(jobs, ({ timeoutSeconds, words }) => {
        const job = gateJobFrom(timeoutSeconds, words);
        REGIONS.forEach((region, index) => {
          const said = words[index];
          const start = said && claimedStart(said.answers, timeoutSeconds);
          if (!said || start === undefined || start < T0 || start > T0 + secondsToMs(timeoutSeconds)) return;
          expect(globalDeadline(job)).toBeGreaterThanOrEqual(start + secondsToMs(timeoutSeconds + said.totalExtensions));
        });
      }),
    );
  });

  it('a region that says it started after the job’s own deadline changes the global deadline no more than one that said nothing', () => {
    fc.assert(
      fc.property(jobs, ({ timeoutSeconds, words }) => {
        const late = REGIONS.find((_, index) => {
          const start = claimedStart(words[index]?.answers ?? [], timeoutSeconds);
          return start !== undefined && start > T0 + secondsToMs(timeoutSeconds);
        });
        fc.pre(late !== undefined);
        expect(globalDeadline(gateJobFrom(timeoutSeconds, words))).toBe(globalDeadline(gateJobFrom(timeoutSeconds, words, late)));
      }),
    );
  });
});
