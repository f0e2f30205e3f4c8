import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { currentWorkerHealth } from '../../shared/app/current-worker-health.js';
import { fireJobTimer } from '../../shared/app/fire-job-timer.js';
import { reportProgress } from '../../shared/app/report-progress.js';
import { DynamoJobStore } from '../../shared/adapters/aws/dynamo-job-store.js';
import { progressCoalesceMs } from '../../shared/domain/deadlines.js';
import type { Job } from '../../shared/domain/job.js';
import { HEALTH_WRITE_INTERVAL_MS } from '../../shared/domain/worker-health.js';
import { T0 } from '../support/fixtures.js';
import { submit, tokenOf, useTestManager } from './support/test-manager.js';

// The hot path writes only a report's workflow item, and a rise in progress at most once per
// coalescing window; the job's stuck clock and the worker's health are read back from the workflows.
// Random report timings, kinds and crashed wake-ups (a fire whose write fails, retried later as the
// sweep would) must keep seed 001 §10.7.4 and AD-26: never stuck early; stuck by threshold + window
// after the last advance, or after the last call carrying a value when one repeats an advance that
// was not written (record-progress.ts); health never more than the write interval behind the
// worker's last call; no answer promising a later stuck time than the wake-up will find.

/** A new step, a rise in progress on the same step, the same values again, or no values. */
type Kind = 'step' | 'rise' | 'repeat' | 'heartbeat';
interface Call {
  gapMs: number;
  kind: Kind;
  workflow: 0 | 1;
  /** The job's next wake-up fails its write once (a crash after the fold read); the retry comes later. */
  crashNextWakeUp: boolean;
}

/** Fails the next `saveJob` when armed: the wake-up's decision write never lands. */
class CrashingStore extends DynamoJobStore {
  crashNext = false;
  override saveJob(job: Job, expectedVersion: number): Promise<Job> {
    if (this.crashNext) {
      this.crashNext = false;
      return Promise.reject(new Error('crashed before the write'));
    }
    return super.saveJob(job, expectedVersion);
  }
}

/** How much later a crashed wake-up is fired again (the sweep's grace and interval, scaled down). */
const RETRY_AFTER_MS = 700;

describe('the one-write hot path keeps the stuck and health bounds (dynalite, fast-check)', () => {
  let stores: CrashingStore[] = [];
  const m = useTestManager({
    store: (doc, table) => {
      const store = new CrashingStore(doc, table);
      stores = [store];
      return store;
    },
  });

  it('random reports and crashed wake-ups: a job is TIMED_OUT as stuck within [last advance + threshold, last credit + threshold + window]', { timeout: 120_000 }, async () => {
    let run = 0;
    await fc.assert(
      fc.asyncProperty(
        fc.constantFrom(10, 30, 120),
        fc.array(
          fc.record({
            gapMs: fc.integer({ min: 0, max: 14_000 }),
            kind: fc.constantFrom<Kind>('step', 'rise', 'repeat', 'heartbeat'),
            workflow: fc.constantFrom<0 | 1>(0, 1),
            crashNextWakeUp: fc.boolean(),
          }),
          { minLength: 1, maxLength: 14 },
        ),
        async (thresholdSeconds, calls: Call[]) => {
          // Prepare: a job of two workflows (two workers), far from its overall deadline
          const jobId = `job-${run++}`;
          const store = stores[0];
          if (!store) throw new Error('no store');
          const workers = [`${jobId}-worker-a`, `${jobId}-worker-b`] as const;
          const submitted = await submit(m, {
            jobId,
            timeoutSeconds: 86_400,
            stuckThresholdSeconds: thresholdSeconds,
            workflows: workers.map((workerId, i) => ({ workflowId: `wf-${i}`, workerId })),
          });
          const thresholdMs = thresholdSeconds * 1_000;
          const windowMs = progressCoalesceMs(thresholdSeconds);
          let lastAdvanceAt = m.clock.now();
          /** The latest a stored stuck clock can be: the last advance, or a later call carrying a value. */
          let latestCreditAt = lastAdvanceAt;
          const steps = [0, 0];
          const levels = [0, 0];
          const reported: Array<{ step: number; progress: number } | undefined> = [undefined, undefined];

          /** Fires every wake-up due by `until` at its due time (a crashed one again RETRY_AFTER_MS later). */
          const fireDueWakeUps = async (until: number, crashFirst: boolean) => {
            let crash = crashFirst;
            for (let fired = 0; fired < 50; fired++) {
              const timer = m.timers.current(jobId);
              const job = await m.getJob(jobId);
              if (!timer || job.status !== 'RUNNING') return;
              const dueAt = job.timerDueAt ?? timer.dueAt;
              if (dueAt > until) return;
              m.clock.set(Math.max(m.clock.now(), dueAt));
              store.crashNext = crash;
              try {
                await fireJobTimer(m.deps, { ...timer, dueAt });
              } catch {
                // The sweep fires it again later; the job item still names the same wake-up.
                m.clock.set(m.clock.now() + RETRY_AFTER_MS);
                await fireJobTimer(m.deps, { ...timer, dueAt });
              }
              store.crashNext = false;
              crash = false;
            }
            throw new Error('more than 50 wake-ups');
          };

          for (const call of calls) {
            const at = m.clock.now() + call.gapMs;
            await fireDueWakeUps(at - 1, call.crashNextWakeUp);
            const job = await m.getJob(jobId);
            if (job.status !== 'RUNNING') break;
            // Assess: still running here means the last advance is within threshold + window
            expect(at - 1).toBeLessThan(latestCreditAt + thresholdMs + windowMs + RETRY_AFTER_MS);
            // Act: the call
            m.clock.set(at);
            const w = call.workflow;
            if (call.kind === 'step') steps[w] = (steps[w] ?? 0) + 1;
            if (call.kind === 'rise') levels[w] = (levels[w] ?? 0) + 0.01;
            const values = { step: steps[w] ?? 0, progress: levels[w] ?? 0 };
            const workerId = workers[w];
            const answer = await reportProgress(m.deps, {
              jobId,
              workflowId: `wf-${w}`,
              workerId,
              token: tokenOf(submitted, `wf-${w}`),
              ...(call.kind === 'heartbeat' ? {} : values),
            });
            // The model: another step than the last reported one, or a higher progress, is an advance (the first step too).
            const before = reported[w];
            const advanced = call.kind !== 'heartbeat' && (before === undefined || before.step !== values.step || values.progress > before.progress);
            if (call.kind !== 'heartbeat') reported[w] = values;
            if (advanced) lastAdvanceAt = at;
            if (call.kind !== 'heartbeat') latestCreditAt = at;
            // Assess: every advance is answered as progress, a heartbeat never is
            if (advanced) expect(answer.progressed).toBe(true);
            if (call.kind === 'heartbeat') expect(answer.progressed).toBe(false);
            // Assess: the answer promises no later stuck time than the stored clock gives
            expect(Date.parse(answer.stuckAt ?? 'missing')).toBeLessThanOrEqual(latestCreditAt + thresholdMs + windowMs);
            // Assess: the worker's health is its last call, at most the write interval behind
            const health = await currentWorkerHealth(m.deps, workerId);
            expect(health?.lastHealthAt).toBeGreaterThanOrEqual(at - HEALTH_WRITE_INTERVAL_MS);
            expect(health?.lastHealthAt).toBeLessThanOrEqual(at);
          }
          // Act: no more calls; every wake-up fires until the job ends
          await fireDueWakeUps(Number.MAX_SAFE_INTEGER, false);
          // Assess: stuck, never before the last advance + threshold, at most one window (and a retry) after the last credit
          const ended = await m.getJob(jobId);
          expect(ended.status).toBe('TIMED_OUT');
          expect(ended.tracking.timeoutReason).toBe('stuck');
          expect(ended.finishedAt).toBeGreaterThanOrEqual(lastAdvanceAt + thresholdMs);
          expect(ended.finishedAt).toBeLessThanOrEqual(latestCreditAt + thresholdMs + windowMs + RETRY_AFTER_MS);
          expect(ended.finishedAt ?? 0).toBeGreaterThan(T0);
        },
      ),
      { numRuns: 30 },
    );
  });
});
