import { ok, type VigilClient } from '../support/vigil-client.js';
import type { KeepAlivePoster } from './keep-alive-poster.js';
import { inParallel, summarize, type Summary } from './stats.js';

export interface ProgressScenario {
  name: string;
  jobs: number;
  clients: number;
  stuckThresholdSeconds: number;
  warmUpMs: number;
  durationMs: number;
  /** Stops earlier when this many reports were sent. */
  maxReports: number;
  /**
   * What each report carries. `new-step`: another step on every call, each one progress that must
   * be written (the most writes). `rising`: progress rising on every call, another step every 100th.
   */
  reports: 'new-step' | 'rising';
}

export interface Reporter {
  jobId: string;
  workflowId: string;
  workerId: string;
  token: string;
  /** Measured reports sent for it so far (warm-up included), so progress keeps rising across runs. */
  sent: number;
}

export interface ProgressRun {
  reports: number;
  seconds: number;
  perSecond: number;
  latencyMs: Summary;
  /** Answers that said `cancel: true`: the job ended during the run (it should not have). */
  cancelAnswers: number;
}

/** Lanes that keep the jobs submitted so far reporting while the rest are submitted. */
const KEEPER_LANES = 4;

/**
 * One job (one workflow, one worker) per reporter, with a deadline far beyond the run. While they
 * are submitted, a few lanes report on the ones already submitted, round-robin: on a busy machine
 * submitting 400 jobs can take longer than a 10 s stuck threshold, and a job that ends as stuck
 * before the measured window would turn its reports into cancels.
 */
export async function submitReporters(client: VigilClient, poster: KeepAlivePoster, scenario: ProgressScenario, prefix: string): Promise<Reporter[]> {
  const reporters: Reporter[] = [];
  const ids = Array.from({ length: scenario.jobs }, (_, i) => `${prefix}-${i}`);
  let submitting = true;
  const keeper = async (lane: number) => {
    for (let n = lane; submitting; n += KEEPER_LANES) {
      const reporter = reporters[n % Math.max(1, reporters.length)];
      // Steps the measured loops never use: each keeper report is an advance.
      if (reporter) await sendReport(poster, reporter, 0, 1_000_000 + n);
      else await new Promise((resolve) => setTimeout(resolve, 20));
    }
  };
  const keepers = Array.from({ length: KEEPER_LANES }, (_, lane) => keeper(lane));
  try {
    await inParallel(ids, 8, async (jobId) => {
      const workerId = `w-${jobId}`;
      const submitted = ok(
        await client.submitJob({ jobId, timeoutSeconds: 3_600, stuckThresholdSeconds: scenario.stuckThresholdSeconds, workflows: [{ workflowId: 'wf-1', workerId }] }),
      );
      const token = submitted.workflows[0]?.token;
      if (!token) throw new Error(`no token for ${jobId}`);
      reporters.push({ jobId, workflowId: 'wf-1', workerId, token, sent: 0 });
    });
  } finally {
    submitting = false;
    await Promise.all(keepers);
  }
  return reporters;
}

/**
 * `clients` keep-alive loops on loopback, each cycling through its share of the reporters and
 * sending one progress report at a time, until `durationMs` passes or `maxReports` were sent.
 */
export async function driveProgress(poster: KeepAlivePoster, reporters: readonly Reporter[], scenario: ProgressScenario, durationMs: number): Promise<ProgressRun> {
  const latencies: number[] = [];
  let cancelAnswers = 0;
  const start = performance.now();
  const stopAt = start + durationMs;
  const lane = async (lane: number) => {
    const mine = reporters.filter((_, i) => i % scenario.clients === lane);
    for (let n = 0; performance.now() < stopAt && latencies.length < scenario.maxReports; n++) {
      const reporter = mine[n % mine.length];
      if (!reporter) return;
      const sentAt = performance.now();
      const k = reporter.sent++;
      const answer =
        scenario.reports === 'new-step' ? await sendReport(poster, reporter, (k % 100) / 100, k) : await sendReport(poster, reporter, k / 1_000_000, Math.floor(k / 100));
      latencies.push(performance.now() - sentAt);
      if (answer.cancel) cancelAnswers++;
    }
  };
  await Promise.all(Array.from({ length: scenario.clients }, (_, i) => lane(i)));
  const seconds = (performance.now() - start) / 1_000;
  return { reports: latencies.length, seconds, perSecond: latencies.length / seconds, latencyMs: summarize(latencies), cancelAnswers };
}

/** One report from every reporter (its first creates the worker's health item): the warm-up. */
export async function reportOnceEach(poster: KeepAlivePoster, reporters: readonly Reporter[], clients: number): Promise<void> {
  await inParallel(reporters, clients, async (reporter) => {
    await sendReport(poster, reporter, 0);
  });
}

async function sendReport(poster: KeepAlivePoster, reporter: Reporter, progress: number, step?: number): Promise<{ cancel: boolean }> {
  const answer = await poster.post(
    `/jobs/${reporter.jobId}/workflows/${reporter.workflowId}/progress`,
    JSON.stringify({ workerId: reporter.workerId, progress, ...(step !== undefined ? { step } : {}) }),
    { 'x-vigil-token': reporter.token },
  );
  if (answer.status !== 200) throw new Error(`progress answered ${answer.status}: ${JSON.stringify(answer.body)}`);
  const body = answer.body;
  return { cancel: typeof body === 'object' && body !== null && 'cancel' in body && body.cancel === true };
}
