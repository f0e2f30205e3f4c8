import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { cancelJob } from '../../../shared/domain/cancel-job.js';
import type { Decision, Effect } from '../../../shared/domain/effects.js';
import type { Job } from '../../../shared/domain/job.js';
import { CLOCK_SKEW_ALLOWANCE_MS, wakeUpLeadBoundMs } from '../../../shared/domain/job-timer.js';
import { startJob } from '../../../shared/domain/submit-job.js';
import { takeOverJob } from '../../../shared/domain/take-over-job.js';
import { onTimerFired } from '../../../shared/domain/timer-fired.js';
import { recordWorkerExtension } from '../../../shared/domain/worker-extensions.js';
import { armedTimers, at, context, GATE_REGION, policy, REGION, runningJob } from '../../support/fixtures.js';

/**
 * A finished job tells the Timers adapter how far ahead any of its wake-ups was ever armed
 * (`DisarmTimer.armedAtMostMsAhead`), and the AWS adapter then skips DeleteSchedule for a job that
 * never had a wake-up past SQS's 15 minutes. That is only sound if no decision arms a job's wake-up
 * further ahead than `wakeUpLeadBoundMs`: checked here on every decision that arms one.
 */
const SECONDS = 3_600 * 4;

const jobState = fc
  .record({
    gate: fc.boolean(),
    timeoutSeconds: fc.integer({ min: 1, max: SECONDS }),
    stuckThresholdSeconds: fc.integer({ min: 1, max: SECONDS }),
    progressAfterS: fc.integer({ min: 0, max: SECONDS }),
    reportAfterS: fc.integer({ min: 0, max: SECONDS }),
    extensionSeconds: fc.integer({ min: 0, max: 600 }),
    reportedTimeoutAfterS: fc.option(fc.integer({ min: 0, max: SECONDS }), { nil: undefined }),
    armedAtS: fc.integer({ min: 0, max: 2 * SECONDS }),
    nowAfterS: fc.integer({ min: 0, max: 2 * SECONDS }),
    reportIntervalSeconds: fc.integer({ min: 1, max: 1_200 }),
  })
  .map((s) => {
    const job = runningJob({
      timeoutSeconds: s.timeoutSeconds,
      stuckThresholdSeconds: s.stuckThresholdSeconds,
      ...(s.gate ? { gateRegion: GATE_REGION } : {}),
      tracking: {
        lastProgressAt: at(s.progressAfterS),
        lastReportAt: at(s.reportAfterS),
        totalExtensionsGranted: s.extensionSeconds,
        ...(s.gate && s.reportedTimeoutAfterS !== undefined ? { locallyTimedOut: true, timeoutReportedAt: at(s.reportedTimeoutAfterS) } : {}),
      },
    });
    // The stored progress and report were stamped no later than now (on a clock in step with it).
    const now = at(Math.max(s.progressAfterS, s.reportAfterS, s.reportedTimeoutAfterS ?? 0) + s.nowAfterS);
    return { job: { ...job, timerDueAt: at(s.armedAtS) }, now, ctx: context(now, { gateReportIntervalSeconds: s.reportIntervalSeconds }) };
  });

/** Every wake-up the decision arms is due at most the bound after the decision. */
function expectWithinBound(job: Job, decision: Decision<Job> | { effects: Effect[] }, now: number, bound: number) {
  for (const timer of armedTimers(decision.effects)) expect(timer.dueAt - now, JSON.stringify(job.tracking)).toBeLessThanOrEqual(bound);
}

describe('no decision arms a job wake-up further ahead than wakeUpLeadBoundMs', () => {
  it('a submit, a wake-up (own, late or early), a takeover, and a grant that moves the deadline earlier', () => {
    fc.assert(
      fc.property(jobState, fc.integer({ min: 0, max: 120 }), ({ job, now, ctx }, grantSeconds) => {
        const bound = wakeUpLeadBoundMs(job.tracking, ctx.policy);
        const submitted = startJob(
          { jobId: 'job-1', timeoutSeconds: job.tracking.timeoutSeconds, stuckThresholdSeconds: job.tracking.stuckThresholdSeconds, ...(job.tracking.gateRegion ? { gateRegion: job.tracking.gateRegion } : {}), workflows: [{ workflowId: 'wf-1', workerId: 'worker-a' }] },
          'digest',
          REGION,
          ctx,
          'incarnation-1',
        );
        expectWithinBound(job, submitted, now, bound);
        expectWithinBound(job, onTimerFired(job, { fenceToken: 1, dueAt: job.timerDueAt ?? now }, ctx), now, bound);
        expectWithinBound(job, onTimerFired(job, { fenceToken: 1 }, ctx), now, bound);
        expectWithinBound(job, takeOverJob(job, ctx), now, bound);
        expectWithinBound(job, recordWorkerExtension(job, [0], { workerIndex: 0, epoch: 0, count: 1, seconds: grantSeconds }, true, ctx), now, bound);
      }),
      { numRuns: 2_000 },
    );
  });
});

describe('a finishing job says how far ahead its wake-ups were armed at most', () => {
  it('a local job: its stuck threshold and coalescing window, plus the allowance for clock skew', () => {
    // Act
    const { effects } = cancelJob(runningJob({ stuckThresholdSeconds: 120 }), 'operator', context(at(30)));
    // Assess
    expect(effects).toContainEqual({ type: 'DisarmTimer', timer: { scope: 'job', jobId: 'job-1', fenceToken: 1 }, armedAtMostMsAhead: 125_000 + CLOCK_SKEW_ALLOWANCE_MS });
  });

  it('a gate-coordinated job: the report interval (it reports, so wakes, every interval), plus the allowance', () => {
    // Act
    const { effects } = cancelJob(runningJob({ stuckThresholdSeconds: 3_600, gateRegion: GATE_REGION }), 'operator', context(at(30)));
    // Assess
    expect(effects).toContainEqual({ type: 'DisarmTimer', timer: { scope: 'job', jobId: 'job-1', fenceToken: 1 }, armedAtMostMsAhead: policy().gateReportIntervalSeconds * 1_000 + CLOCK_SKEW_ALLOWANCE_MS });
  });
});
