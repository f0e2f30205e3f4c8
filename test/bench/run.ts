/**
 * `npm run bench`: the numbers issues 2 and 3 ask for, each beside a baseline measured in the same run.
 *   1. Timer lateness of 1,000 local-cloud timers (bench child timer-lateness.ts) vs bare setTimeout.
 *   2. Progress reports per second through the local HTTP API and DynamoDB writes per report
 *      (bench child progress-cloud.ts counts them), vs raw dynalite conditional UpdateItem.
 *   3. Gate coordination (gate-coordination.ts): events per 3-region job, and first local timeout →
 *      last region TIMED_OUT, vs single-region local authority.
 *   4. Sweep recovery (sweep-recovery.ts): one sweep over a full batch of lost wake-ups (how many
 *      end within the detection bound, at 8 and 16 in flight) vs firing them directly, and fairness
 *      next to a shard of failing wake-ups.
 *   5. Agent fleets (agent-fleets.ts): enforcement overhead vs a plain loop, agent/command timeout precision.
 *   6. The operator console (console-render.ts): bundle size, and time to first render of the jobs
 *      list in headless Chromium vs the same browser loading a bare route.
 *   7. The cost model (shared/simulation/cost/, also `npm run cost`): AWS calls per job and per pool
 *      item counted in the simulator, priced, beside Step Functions Standard and Temporal Cloud.
 * `npm run bench -- --only progress,timers` runs some sections only.
 * Everything runs under a temp dir that is removed; a watchdog ends the run if it hangs.
 */
process.env['AWS_SDK_JS_NODE_VERSION_SUPPORT_WARNING_DISABLED'] ??= 'true';
process.env['POWERTOOLS_METRICS_DISABLED'] ??= 'true';

import { mkdtempSync, rmSync } from 'node:fs';
import { availableParallelism, cpus, tmpdir } from 'node:os';
import { join } from 'node:path';
import { VigilClient } from '../support/vigil-client.js';
import { BenchChild } from './bench-child.js';
import { KeepAlivePoster } from './keep-alive-poster.js';
import { totalOf } from './dynamo-counter.js';
import { dynaliteConditionalUpdateRate, type UpdateRate } from './dynalite-update-rate.js';
import { progressCloudCounts, progressCloudReady, timerLatenessResult, type DynamoCounts, type TimerLatenessResult } from './messages.js';
import { driveProgress, reportOnceEach, submitReporters, type ProgressRun, type ProgressScenario } from './progress-load.js';
import { summarize, type Summary } from './stats.js';
import { fmtMs, fmtRate, formatTable } from './table.js';
import { benchGateCoordination } from './gate-coordination.js';
import { benchSweepRecovery } from './sweep-recovery.js';
import { benchAgentFleets, formatAgentFleets } from './agent-fleets.js';
import { benchClaimCost } from './claim-cost.js';
import { benchConsole } from './console-render.js';
import { printCostReport } from '../../shared/simulation/cost/report.js';

// The cost model (section 7) adds about 10 s of CPU, the claim-cost bench more; a loaded machine stretches every section.
const WATCHDOG_MS = 540_000;
const TIMER_TARGET_P99_MS = 100;
const CLIENTS = 8;
const RAW_DURATION_MS = 3_000;
const SECTIONS = ['timers', 'progress', 'gate', 'sweep', 'fleets', 'console', 'cost'] as const;
type Section = (typeof SECTIONS)[number];

const scenarios: ProgressScenario[] = [
  // Few jobs reporting as fast as they can, progress rising every call: the coalescing window (min(5 s, stuck / 20)) absorbs most writes.
  { name: `hot: 8 jobs, stuck 120 s (5 s window), rising progress`, jobs: 8, clients: CLIENTS, stuckThresholdSeconds: 120, warmUpMs: 1_000, durationMs: 5_000, maxReports: 50_000, reports: 'rising' },
  // The same, with another step on every call: a step is always written (record-progress.ts).
  { name: `hot: 8 jobs, stuck 120 s, a new step every call`, jobs: 8, clients: CLIENTS, stuckThresholdSeconds: 120, warmUpMs: 1_000, durationMs: 5_000, maxReports: 50_000, reports: 'new-step' },
  // Many jobs, each reported less often than its 500 ms window: coalescing cannot help.
  { name: `spread: 400 jobs, stuck 10 s (500 ms window)`, jobs: 400, clients: CLIENTS, stuckThresholdSeconds: 10, warmUpMs: 1_000, durationMs: 5_000, maxReports: 50_000, reports: 'new-step' },
];

interface ScenarioResult {
  scenario: ProgressScenario;
  run: ProgressRun;
  writes: Record<string, number>;
  conditionalFailures: number;
  reads: number;
  serverCpuMs: number;
  clientCpuMs: number;
}

const root = mkdtempSync(join(tmpdir(), 'vigil-bench-'));
const children: BenchChild[] = [];
const watchdog = setTimeout(() => {
  console.error(`bench: still running after ${WATCHDOG_MS / 1_000} s; stopping`);
  rmSync(root, { recursive: true, force: true });
  process.exit(1); // the exit hook in bench-child.ts kills the children
}, WATCHDOG_MS);
watchdog.unref();

try {
  const startedAt = Date.now();
  console.log(`Vigil bench · node ${process.version} · ${availableParallelism()} CPUs (${cpus()[0]?.model.trim() ?? 'unknown'}) · ${new Date().toISOString()}\n`);

  const only = sectionsToRun(process.argv.slice(2));
  const timers = only.has('timers') ? await step('1/7 timer lateness: 1,000 jobs through the submit use case, deadlines spread over 3 s', measureTimers) : undefined;
  const progress = only.has('progress') ? await step('2/7 progress reports through the local HTTP API', measureProgress) : undefined;
  const raw = only.has('progress')
    ? await step('3/7 raw dynalite conditional UpdateItem (baseline)', async () => [
        await dynaliteConditionalUpdateRate(join(root, 'raw-1'), 1, RAW_DURATION_MS, true),
        await dynaliteConditionalUpdateRate(join(root, `raw-${CLIENTS}`), CLIENTS, RAW_DURATION_MS, true),
        await dynaliteConditionalUpdateRate(join(root, `raw-${CLIENTS}-workflow`), CLIENTS, RAW_DURATION_MS, true, 'workflow'),
        // The floor before dynalite moved to its own thread: the baseline of earlier runs.
        await dynaliteConditionalUpdateRate(join(root, `raw-${CLIENTS}-in-process`), CLIENTS, RAW_DURATION_MS, false),
      ])
    : undefined;
  const gate = only.has('gate') ? await step('4/7 gate coordination across three regions', benchGateCoordination) : undefined;
  const sweep = only.has('sweep') ? await step('5/7 backstop sweep recovery', benchSweepRecovery) : undefined;
  const fleets = only.has('fleets') ? await step('6/7 agent fleets: enforcement overhead and timeout precision', () => benchAgentFleets(root, children)) : undefined;
  const claimCost = only.has('fleets') ? await benchClaimCost() : undefined;
  const consoleNumbers = only.has('console') ? await step('7/7 the operator console', () => benchConsole(root, children)) : undefined;
  console.log();

  if (timers) printTimers(timers, raw?.find((rate) => rate.loops === CLIENTS && rate.thread && rate.shape === 'job'));
  if (progress && raw) printProgress(progress, raw);
  if (gate) console.log(`\n3. Gate coordination\n${gate}`);
  if (sweep) console.log(`\n4. Backstop sweep recovery (in-memory dynalite, injected clock)\n${sweep}`);
  if (fleets && timers) console.log(`\n5. Agent fleets\n${formatAgentFleets(fleets, summarize(timers.localMs))}\n${claimCost ?? ''}`);
  else if (fleets) console.log('\n5. Agent fleets: printed with the timer section (run it too: --only timers,fleets)');
  if (consoleNumbers) console.log(`\n6. Operator console\n${consoleNumbers}`);
  if (only.has('cost')) {
    // Last, on its own: the simulator counts AWS calls per job and per pool item (also `npm run cost`).
    console.log('\n7. Cost model: AWS calls counted in the simulator, priced, beside the alternatives\n');
    await printCostReport();
  }
  console.log(`\n(bench took ${Math.round((Date.now() - startedAt) / 1_000)} s)`);
} finally {
  for (const child of children) await child.stop();
  clearTimeout(watchdog);
  rmSync(root, { recursive: true, force: true });
}

/** `--only timers,progress` runs those sections (names in SECTIONS); every section by default. */
function sectionsToRun(args: readonly string[]): ReadonlySet<Section> {
  const at = args.indexOf('--only');
  if (at === -1) return new Set(SECTIONS);
  const asked = (args[at + 1] ?? '').split(',').filter((name) => name !== '');
  const unknown = asked.filter((name) => !(SECTIONS as readonly string[]).includes(name));
  if (asked.length === 0 || unknown.length > 0) {
    console.error(`bench: --only takes a comma-separated list of ${SECTIONS.join(', ')}${unknown.length > 0 ? ` (not: ${unknown.join(', ')})` : ''}`);
    process.exit(2);
  }
  return new Set(asked as Section[]);
}

async function step<T>(title: string, run: () => Promise<T>): Promise<T> {
  console.log(`${title} …`);
  return run();
}

async function measureTimers(): Promise<TimerLatenessResult> {
  const child = BenchChild.start('timer-lateness.ts', [join(root, 'timers')], join(root, 'timer-lateness.log'));
  children.push(child);
  const result = await child.receive(timerLatenessResult, 90_000);
  await child.stop();
  return result;
}

async function measureProgress(): Promise<ScenarioResult[]> {
  const child = BenchChild.start('progress-cloud.ts', [join(root, 'progress')], join(root, 'progress-cloud.log'));
  children.push(child);
  const { regionUrl } = await child.receive(progressCloudReady, 60_000);
  const client = new VigilClient(regionUrl);
  const poster = new KeepAlivePoster(regionUrl);
  const counts = async (): Promise<DynamoCounts> => {
    child.send({ type: 'counts' });
    return child.receive(progressCloudCounts, 10_000);
  };
  const results: ScenarioResult[] = [];
  for (const [index, scenario] of scenarios.entries()) {
    const reporters = await submitReporters(client, poster, scenario, `bench${index}`);
    // Warm-up: every reporter's first report (it creates the worker's health item), then steady load.
    await reportOnceEach(poster, reporters, scenario.clients);
    await driveProgress(poster, reporters, scenario, scenario.warmUpMs);
    const before = await counts();
    const clientCpuBefore = process.cpuUsage();
    const run = await driveProgress(poster, reporters, scenario, scenario.durationMs);
    const clientCpu = process.cpuUsage(clientCpuBefore);
    const after = await counts();
    const writes = delta(before.itemWrites, after.itemWrites);
    const reads = ['GetItem', 'BatchGetItem', 'Query'].reduce((sum, op) => sum + (after.requests[op] ?? 0) - (before.requests[op] ?? 0), 0);
    results.push({
      scenario,
      run,
      writes,
      reads,
      conditionalFailures: after.conditionalFailures - before.conditionalFailures,
      serverCpuMs: (after.cpuMicros - before.cpuMicros) / 1_000,
      clientCpuMs: (clientCpu.user + clientCpu.system) / 1_000,
    });
  }
  poster.close();
  await child.stop();
  return results;
}

function delta(before: Record<string, number>, after: Record<string, number>): Record<string, number> {
  const out: Record<string, number> = {};
  for (const [key, value] of Object.entries(after)) {
    const change = value - (before[key] ?? 0);
    if (change > 0) out[key] = change;
  }
  return out;
}

function latencyRow(name: string, summary: Summary): string[] {
  return [name, String(summary.count), fmtMs(summary.p50), fmtMs(summary.p99), fmtMs(summary.max)];
}

function printTimers(result: TimerLatenessResult, rawCapacity: UpdateRate | undefined): void {
  const local = summarize(result.localMs);
  console.log(`1. Timer lateness (fired − due), ${result.jobs.toLocaleString('en-US')} local timers due over ${result.spreadMs / 1_000} s`);
  console.log(
    formatTable(
      ['measured', 'timers', 'p50', 'p99', 'max'],
      [
        latencyRow('local cloud: wake-up starts the fire-job-timer handler', local),
        latencyRow('local cloud: timeout decided (finishedAt − due)', summarize(result.timedOutMs)),
        latencyRow('local cloud: job is TIMED_OUT in DynamoDB (its write acknowledged − due)', summarize(result.timedOutAckMs)),
        latencyRow('local cloud: its wake-up handler starting → TIMED_OUT acknowledged', summarize(result.handledMs)),
        latencyRow('baseline: bare setTimeout, same due times, same process and run', summarize(result.bareSameRunMs)),
        latencyRow('baseline: bare setTimeout, same schedule, idle event loop', summarize(result.bareIdleMs)),
        latencyRow('baseline: one raw conditional UpdateItem per due time (write acknowledged − due)', summarize(result.rawWriteMs)),
      ],
    ),
  );
  const timedOutP99 = summarize(result.timedOutAckMs).p99;
  const rawP99 = summarize(result.rawWriteMs).p99;
  const bareP99 = summarize(result.bareSameRunMs).p99;
  console.log(
    `   TIMED_OUT in DynamoDB p99 ${fmtMs(timedOutP99)} = ${(timedOutP99 / Math.max(1, rawP99)).toFixed(1)}× the raw write p99 at that load (${fmtMs(rawP99)}; target ≤ 2×). ` +
      `A bare setTimeout in the same process is already ${fmtMs(bareP99)} late at p99: every handler shares one event loop here, as no two Lambdas do.`,
  );
  const capacity = rawCapacity ? ` = ${Math.round((100 * result.burstRequestsPerSecond) / rawCapacity.perSecond)}% of what dynalite served to ${rawCapacity.loops} raw loops in section 2` : ' (run --only timers,progress to set it beside dynalite\'s raw rate)';
  console.log(`   During the burst the region sent dynalite ${Math.round(result.burstRequestsPerSecond).toLocaleString('en-US')} requests/s${capacity}.`);
  const verdict = local.p99 <= TIMER_TARGET_P99_MS ? 'met' : 'NOT met';
  console.log(`   target p99 ≤ ${TIMER_TARGET_P99_MS} ms (wake-up): ${verdict} (p99 ${fmtMs(local.p99)}).`);
  const perTimeout = (record: Record<string, number>) =>
    Object.entries(record)
      .sort(([a], [b]) => a.localeCompare(b))
      .map(([what, n]) => `${what} ${(n / result.jobs).toFixed(2)}`)
      .join(', ');
  console.log(
    `   DynamoDB per timed-out job while the timers fired: ${(totalOf(result.firingRequests) / result.jobs).toFixed(2)} requests ` +
      `(${perTimeout(result.firingRequests)}); item writes: ${perTimeout(result.firingItemWrites)}.`,
  );
  console.log(
    `   ${result.jobs} submissions took ${result.submitSeconds.toFixed(1)} s; ${result.armedLate} returned after their own due time; ` +
      `${result.notTimedOut} jobs were not TIMED_OUT in the end.`,
  );
}

function printProgress(results: readonly ScenarioResult[], raw: readonly UpdateRate[]): void {
  console.log(`\n2. Progress reports through the local HTTP API (${CLIENTS} concurrent keep-alive clients on loopback, a separate process)`);
  const writesOf = (result: ScenarioResult) => totalOf(result.writes);
  console.log(
    formatTable(
      ['measured', 'requests', 'rate', 'p50', 'p99', 'writes', 'writes/report', 'reads/report'],
      [
        ...results.map((result) => [
          result.scenario.name,
          String(result.run.reports),
          fmtRate(result.run.perSecond),
          fmtMs(result.run.latencyMs.p50),
          fmtMs(result.run.latencyMs.p99),
          String(writesOf(result)),
          (writesOf(result) / result.run.reports).toFixed(3),
          (result.reads / result.run.reports).toFixed(2),
        ]),
        ...raw.map((rate) => [
          `baseline: raw dynalite conditional UpdateItem, ${rate.loops} loop${rate.loops > 1 ? 's' : ''}${rate.thread ? '' : ', dynalite in-process'}` +
            (rate.shape === 'workflow' ? ', a workflow item' : ''),
          String(rate.updates),
          fmtRate(rate.perSecond),
          fmtMs(rate.latencyMs.p50),
          fmtMs(rate.latencyMs.p99),
          String(rate.updates),
          '1.000',
          '0.00',
        ]),
      ],
    ),
  );
  const floor = raw.find((rate) => rate.thread && rate.loops === CLIENTS && rate.shape === 'job');
  const ownWrite = raw.find((rate) => rate.thread && rate.loops === CLIENTS && rate.shape === 'workflow');
  const inProcess = raw.find((rate) => !rate.thread && rate.loops === CLIENTS);
  for (const result of results) {
    const share = (rate: UpdateRate | undefined) => (rate ? `${Math.round((100 * result.run.perSecond) / rate.perSecond)}%` : 'n/a');
    console.log(
      `   ${result.scenario.name}: ${share(floor)} of the raw ${CLIENTS}-loop rate as the local cloud runs dynalite (target ≥ 60%), ` +
        `${share(ownWrite)} of the report's own write raw (a workflow item), ${share(inProcess)} of the in-process one.`,
    );
  }
  console.log('   Writes are counted by a middleware on the region\'s DynamoDB client (each PutItem/UpdateItem/DeleteItem,');
  console.log('   each item of a BatchWriteItem), over the measured window only (job submission and warm-up excluded):');
  for (const result of results) {
    const parts = Object.entries(result.writes)
      .sort(([a], [b]) => a.localeCompare(b))
      .map(([what, n]) => `${what} ${n} (${(n / result.run.reports).toFixed(3)}/report)`);
    const failedNote = result.conditionalFailures > 0 ? `; ${result.conditionalFailures} of them failed their condition (still billed)` : '';
    const cancelNote = result.run.cancelAnswers > 0 ? `; ${result.run.cancelAnswers} answers said cancel: the job ended mid-run` : '';
    console.log(`   - ${result.scenario.name}: ${parts.join(', ') || 'none'}${failedNote}${cancelNote}`);
  }
  console.log('   (UpdateItem workflow: the report\'s one write, an advance or a coalesced heartbeat; UpdateItem worker: a health touch');
  console.log('   by a call that wrote no workflow; PutItem job: a whole-job write, here a job\'s wake-up at its stuck deadline re-arming');
  console.log('   from its workflows\' progress, once per job per stuck threshold whatever the report rate; PutItem worker: a first health item.)');
  console.log('   CPU per report (the server is one Node process: HTTP, handlers and the SDK on its event loop, dynalite in a worker thread):');
  for (const result of results) {
    const perReport = (ms: number) => `${(ms / result.run.reports).toFixed(2)} ms`;
    const busy = (ms: number) => `${Math.round((100 * ms) / (result.run.seconds * 1_000))}%`;
    console.log(
      `   - ${result.scenario.name}: server ${perReport(result.serverCpuMs)} (${busy(result.serverCpuMs)} of a core), ` +
        `bench clients ${perReport(result.clientCpuMs)} (${busy(result.clientCpuMs)} of a core)`,
    );
  }
}
