/**
 * The gate's numbers, on the local cloud (gate + three region managers, each on its own dynalite, the
 * production policy: reports and re-sends every 10 s), measured in a child process (bench-child.ts)
 * so that the cloud has its own event loop and quiet logs:
 *   (a) events per job by detail-type (`network.published`) for a 3-region job that completes and
 *       for one that times out because one region is stuck;
 *   (b) time from the first local timeout (first JobTimeoutReport published) to the last region
 *       TIMED_OUT, p50 / p99 over 100 jobs, beside a same-run baseline: 100 single-region
 *       local-authority jobs, from their stuck deadline to TIMED_OUT.
 * `benchGateCoordination()` returns the printable tables; `npx tsx test/bench/gate-coordination.ts`
 * prints them. Bounded by a watchdog well under two minutes.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import { pathToFileURL } from 'node:url';
import { z } from 'zod';
import { BenchChild, NPM_START_THRESHOLDS, toParent } from './bench-child.js';
import { inParallel, summarize } from './stats.js';
import { fmtMs, formatTable } from './table.js';

const REGIONS = ['us-east-1', 'eu-west-1', 'ap-southeast-2'] as const;
const TIMEOUT_JOBS = 100;
const COMPLETING_JOBS = 20;
/** One region of each timing-out job goes silent; its manager times it out as stuck after this. */
const STUCK_SECONDS = 4;
/** How long a completing job runs, with its workers reporting, before every workflow completes. */
const COMPLETING_RUN_MS = 12_000;
/** The timing-out jobs' stuck deadlines are spread over this window (under 7 jobs a second: latency, not saturation). */
const SPREAD_MS = 15_000;
/** How often the busy workers report progress (well inside the stuck threshold). */
const WORKER_REPORT_EVERY_MS = 2_000;
const CONCURRENCY = 8;
const CHILD_TIMEOUT_MS = 100_000;

const latencySample = z.array(z.number());
const gateBenchResult = z.object({
  type: z.literal('result'),
  completing: z.object({ jobs: z.number(), runMs: z.number(), eventsByType: z.record(z.string(), z.array(z.number())) }),
  timingOut: z.object({ jobs: z.number(), stuckSeconds: z.number(), eventsByType: z.record(z.string(), z.array(z.number())) }),
  /** Stuck deadline of the silent region → its JobTimeoutReport published. */
  detectionMs: latencySample,
  /** First JobTimeoutReport published → first JobGlobalTimeout published. */
  decisionMs: latencySample,
  /** First JobTimeoutReport published → the last region's job TIMED_OUT (its finishedAt). */
  firstReportToLastTimedOutMs: latencySample,
  /** Single-region local-authority jobs: stuck deadline → TIMED_OUT (finishedAt). */
  baselineMs: latencySample,
  notGlobal: z.number(),
  seconds: z.number(),
});
type GateBenchResult = z.infer<typeof gateBenchResult>;

/** Runs the measurement in a child process and returns the printable tables. */
export async function benchGateCoordination(): Promise<string> {
  const root = mkdtempSync(join(tmpdir(), 'vigil-bench-gate-'));
  const child = BenchChild.start('gate-coordination.ts', ['--child', join(root, 'data')], join(root, 'gate-coordination.log'));
  try {
    return report(await child.receive(gateBenchResult, CHILD_TIMEOUT_MS));
  } finally {
    await child.stop();
    rmSync(root, { recursive: true, force: true });
  }
}

function report(result: GateBenchResult): string {
  const types = [...new Set([...Object.keys(result.completing.eventsByType), ...Object.keys(result.timingOut.eventsByType)])].sort();
  const perJob = (counts: number[] | undefined, jobs: number) => {
    if (!counts || counts.length === 0) return '0';
    const mean = counts.reduce((sum, n) => sum + n, 0) / jobs;
    const min = counts.length < jobs ? 0 : Math.min(...counts);
    const max = Math.max(...counts);
    return min === max ? mean.toFixed(2) : `${mean.toFixed(2)} (${min}–${max})`;
  };
  const total = (byType: Record<string, number[]>, jobs: number) =>
    (Object.values(byType).reduce((sum, counts) => sum + counts.reduce((s, n) => s + n, 0), 0) / jobs).toFixed(2);
  const events = formatTable(
    ['detail-type', `completes (${result.completing.runMs / 1_000} s run)`, `one region stuck ${result.timingOut.stuckSeconds} s → global timeout`],
    [
      ...types.map((type) => [type, perJob(result.completing.eventsByType[type], result.completing.jobs), perJob(result.timingOut.eventsByType[type], result.timingOut.jobs)]),
      ['total', total(result.completing.eventsByType, result.completing.jobs), total(result.timingOut.eventsByType, result.timingOut.jobs)],
    ],
  );
  const row = (name: string, values: number[]) => {
    const s = summarize(values);
    return [name, String(s.count), fmtMs(s.p50), fmtMs(s.p99), fmtMs(s.max)];
  };
  const latency = formatTable(
    ['measured', 'jobs', 'p50', 'p99', 'max'],
    [
      row('gate: first local timeout → last region TIMED_OUT', result.firstReportToLastTimedOutMs),
      row('  of which: first JobTimeoutReport → JobGlobalTimeout sent', result.decisionMs),
      row('gate: stuck deadline → JobTimeoutReport sent (local detection)', result.detectionMs),
      row('baseline: local authority, stuck deadline → TIMED_OUT', result.baselineMs),
    ],
  );
  return [
    `Gate coordination on the local cloud: 3 regions, production intervals (report and re-send every 10 s), no injected faults.`,
    `(a) Events per job by detail-type, from the local network's published events (mean, min–max over ${result.completing.jobs} and ${result.timingOut.jobs} jobs)`,
    events,
    '',
    `(b) One region stuck: ${result.timingOut.jobs} gate-coordinated jobs and, beside them in the same run, ${result.baselineMs.length} single-region`,
    `    local-authority jobs; their deadlines spread over ${SPREAD_MS / 1_000} s`,
    latency,
    result.notGlobal > 0 ? `   ${result.notGlobal} gate jobs did not end TIMED_OUT global_timeout in every region.` : '   Every region of every gate job ended TIMED_OUT global_timeout.',
    `   (measured in ${result.seconds.toFixed(0)} s)`,
  ].join('\n');
}

// ——— the child: the local cloud and the load ———

interface Workflow {
  region: string;
  jobId: string;
  workerId: string;
  token: string;
}

async function runChild(dataDir: string): Promise<void> {
  process.env['POWERTOOLS_LOG_LEVEL'] = 'SILENT';
  const startedAt = Date.now();
  const { startLocalCloud } = await import('../../shared/local/local-cloud.js');
  const { submitGateJob } = await import('../../shared/app/gate/submit-gate-job.js');
  const { submitJob } = await import('../../shared/app/submit-job.js');
  const { reportProgress } = await import('../../shared/app/report-progress.js');
  const { completeWorkflow } = await import('../../shared/app/complete-workflow.js');
  const { stuckDeadline } = await import('../../shared/domain/deadlines.js');

  const cloud = await startLocalCloud({
    port: 0,
    regions: [...REGIONS],
    dataDir,
    ...NPM_START_THRESHOLDS,
  });
  try {
    const managers = (region: string) => {
      const deps = cloud.regions.get(region)?.deps;
      if (!deps) throw new Error(`no region ${region}`);
      return deps;
    };
    const submitAcross = async (jobId: string, stuckThresholdSeconds: number) => {
      const { view } = await submitGateJob(cloud.gate.deps, {
        jobId,
        timeoutSeconds: 600,
        stuckThresholdSeconds,
        datacenters: Object.fromEntries(REGIONS.map((region) => [region, { workflows: [{ workflowId: 'wf-1', workerId: `w-${region}-${jobId}` }] }])),
      });
      return REGIONS.map((region): Workflow => {
        const token = view.datacenters[region]?.workflows[0]?.token;
        if (token === undefined) throw new Error(`no token for ${jobId} in ${region}`);
        return { region, jobId, workerId: `w-${region}-${jobId}`, token };
      });
    };
    const progress = async (w: Workflow, value: number) =>
      (await reportProgress(managers(w.region), { jobId: w.jobId, workflowId: 'wf-1', workerId: w.workerId, progress: value, token: w.token })).cancel;
    /** Busy workers: each reports every WORKER_REPORT_EVERY_MS until told to stop or `until` passes. */
    const keepBusy = async (workflows: Workflow[], until: number) => {
      let live = workflows;
      for (let round = 1; live.length > 0 && Date.now() < until; round++) {
        const next = Date.now() + WORKER_REPORT_EVERY_MS;
        const stillRunning: Workflow[] = [];
        await inParallel(live, CONCURRENCY, async (w) => {
          if (!(await progress(w, Math.min(0.99, round / 100)))) stillRunning.push(w);
        });
        live = stillRunning;
        await sleep(Math.max(0, Math.min(next, until) - Date.now()));
      }
    };
    const eventsOf = (jobIds: ReadonlySet<string>) => {
      const byJob = new Map<string, Record<string, number>>();
      for (const { event } of cloud.network.published) {
        const jobId = event.detail['jobId'];
        if (typeof jobId !== 'string' || !jobIds.has(jobId)) continue;
        const counts = byJob.get(jobId) ?? {};
        counts[event.detailType] = (counts[event.detailType] ?? 0) + 1;
        byJob.set(jobId, counts);
      }
      const byType: Record<string, number[]> = {};
      for (const counts of byJob.values()) for (const [type, n] of Object.entries(counts)) (byType[type] ??= []).push(n);
      return byType;
    };
    const waitUntil = async (check: () => Promise<boolean>, timeoutMs: number) => {
      for (const giveUpAt = Date.now() + timeoutMs; !(await check()) && Date.now() < giveUpAt; ) await sleep(100);
    };

    // Timing-out gate jobs and, beside them in the same region processes, single-region
    // local-authority jobs (the baseline), submitted at a steady pace so that their stuck deadlines
    // are spread over SPREAD_MS. In gate job i, region i mod 3 goes silent and the other two keep
    // reporting; the baseline jobs are silent.
    const local = managers('us-east-1');
    const timeoutIds = Array.from({ length: TIMEOUT_JOBS }, (_, i) => `gto-${i}`);
    const baselineIds = Array.from({ length: TIMEOUT_JOBS }, (_, i) => `base-${i}`);
    // The busy regions' workers report once, half-way to the stuck deadline: that moves their own
    // stuck deadline past the moment the silent region's timeout has ended the job everywhere.
    const busyReports: Array<Promise<unknown>> = [];
    const paceStart = Date.now();
    await inParallel(timeoutIds, CONCURRENCY, async (jobId, i) => {
      await sleep(Math.max(0, paceStart + (i * SPREAD_MS) / TIMEOUT_JOBS - Date.now()));
      const [workflows] = await Promise.all([
        submitAcross(jobId, STUCK_SECONDS),
        submitJob(local, { jobId: `base-${i}`, timeoutSeconds: 600, stuckThresholdSeconds: STUCK_SECONDS, workflows: [{ workflowId: 'wf-1', workerId: `w-base-${i}` }] }),
      ]);
      const busy = workflows.filter((w) => w.region !== REGIONS[i % REGIONS.length]);
      busyReports.push(sleep((STUCK_SECONDS * 1_000) / 2).then(() => Promise.all(busy.map((w) => progress(w, 0.5)))));
    });
    const regionJobs = async (jobId: string) => Promise.all(REGIONS.map(async (region) => managers(region).jobs.getJob(jobId)));
    await Promise.all(busyReports);
    await waitUntil(async () => (await Promise.all(timeoutIds.map(regionJobs))).every((jobs) => jobs.every((job) => job?.status !== 'RUNNING')), STUCK_SECONDS * 1_000 + 30_000);
    // Let re-sends and duplicate answers settle before counting.
    await waitUntil(async () => {
      const gates = await Promise.all(timeoutIds.map((jobId) => cloud.gate.deps.gates.get(jobId)));
      return gates.every((job) => job !== undefined && job.timerDueAt === undefined);
    }, 15_000);
    const baselineMs: number[] = [];
    for (const jobId of baselineIds) {
      const job = await local.jobs.getJob(jobId);
      if (job?.status === 'TIMED_OUT' && job.finishedAt !== undefined) baselineMs.push(job.finishedAt - stuckDeadline(job.tracking));
    }

    const detectionMs: number[] = [];
    const decisionMs: number[] = [];
    const firstReportToLastTimedOutMs: number[] = [];
    let notGlobal = 0;
    for (const [i, jobId] of timeoutIds.entries()) {
      const published = cloud.network.published.filter(({ event }) => event.detail['jobId'] === jobId);
      const firstReport = published.find(({ event }) => event.detailType === 'JobTimeoutReport');
      const firstDecision = published.find(({ event }) => event.detailType === 'JobGlobalTimeout');
      const jobs = await regionJobs(jobId);
      const stuck = jobs[i % REGIONS.length];
      if (!firstReport || !firstDecision || !stuck || jobs.some((job) => job?.status !== 'TIMED_OUT' || job.tracking.timeoutReason !== 'global_timeout')) {
        notGlobal++;
        continue;
      }
      detectionMs.push(firstReport.at - stuckDeadline(stuck.tracking));
      decisionMs.push(firstDecision.at - firstReport.at);
      firstReportToLastTimedOutMs.push(Math.max(...jobs.map((job) => job?.finishedAt ?? Infinity)) - firstReport.at);
    }

    // Gate jobs that complete: busy workers for COMPLETING_RUN_MS, then every workflow completes.
    const completingIds = Array.from({ length: COMPLETING_JOBS }, (_, i) => `gok-${i}`);
    const completing: Workflow[] = [];
    await inParallel(completingIds, CONCURRENCY, async (jobId) => {
      completing.push(...(await submitAcross(jobId, 120)));
    });
    await keepBusy(completing, Date.now() + COMPLETING_RUN_MS);
    await inParallel(completing, CONCURRENCY, async (w) => {
      await completeWorkflow(managers(w.region), { jobId: w.jobId, workflowId: 'wf-1', workerId: w.workerId, outcome: 'completed', token: w.token });
    });
    await waitUntil(async () => {
      const gates = await Promise.all(completingIds.map((jobId) => cloud.gate.deps.gates.get(jobId)));
      return gates.every((job) => job !== undefined && job.timerDueAt === undefined);
    }, 15_000);

    await toParent({
      type: 'result',
      completing: { jobs: COMPLETING_JOBS, runMs: COMPLETING_RUN_MS, eventsByType: eventsOf(new Set(completingIds)) },
      timingOut: { jobs: TIMEOUT_JOBS, stuckSeconds: STUCK_SECONDS, eventsByType: eventsOf(new Set(timeoutIds)) },
      detectionMs,
      decisionMs,
      firstReportToLastTimedOutMs,
      baselineMs,
      notGlobal,
      seconds: (Date.now() - startedAt) / 1_000,
    } satisfies GateBenchResult);
  } finally {
    await cloud.close();
  }
}

const invokedAs = process.argv[1];
if (invokedAs !== undefined && import.meta.url === pathToFileURL(invokedAs).href) {
  if (process.argv[2] === '--child') {
    const dataDir = process.argv[3];
    if (!dataDir) throw new Error('usage: gate-coordination.ts --child <data dir>');
    await runChild(dataDir);
    process.exit(0);
  } else {
    process.env['AWS_SDK_JS_NODE_VERSION_SUPPORT_WARNING_DISABLED'] ??= 'true';
    console.log(await benchGateCoordination());
  }
}
