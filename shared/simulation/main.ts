import { performance } from 'node:perf_hooks';
import { parseSimulateArgs } from './cli-args.js';
import { generatePlan } from './world/generate-plan.js';
import { runPlan, type RunResult } from './run-plan.js';
import { describeFailures, sweepSeeds } from './sweep.js';
import { breaks, shrink } from './shrink.js';

/** The simulator's command line (see `USAGE`). */
async function main(): Promise<number> {
  // As `npm start`: the AWS SDK's Node 20 notice (the --store dynalite clients) is noise in a sweep's output.
  process.env['AWS_SDK_JS_NODE_VERSION_SUPPORT_WARNING_DISABLED'] ??= 'true';
  const args = parseSimulateArgs(process.argv.slice(2));
  const started = performance.now();
  // One seed also prints its trace (with --trace) and its digest, from the same run.
  const printOneSeed = (result: RunResult) => {
    for (const line of result.trace) console.log(line);
    console.log(`seed ${args.seed}: ${result.steps} steps, ${(result.simulatedMs / 3_600_000).toFixed(2)} h simulated, digest ${result.digest}`);
  };
  const oneSeed = args.seeds === 1;
  const summary = await sweepSeeds(args.seed, args.seeds, args.options, { store: args.store, keepTrace: oneSeed && args.trace }, oneSeed ? printOneSeed : undefined);
  const seconds = (performance.now() - started) / 1000;
  // dynalite refuses an oversized item itself and does not report sizes.
  const largest = args.store === 'memory' ? `; largest item ${summary.largestItemBytes} B` : '';
  console.log(
    `${summary.seeds} seed(s) from ${args.seed} × ${args.options.jobs} jobs × ${args.options.pools} pools × faults [${args.options.faults.join(',') || 'none'}]: ` +
      `${summary.steps} steps, ${(summary.simulatedMs / 3_600_000).toFixed(1)} h simulated in ${seconds.toFixed(1)} s${largest}`,
  );
  console.log(`crashes: ${summary.crashes.describe()}`);
  if (summary.failingSeeds.size === 0) {
    console.log('no violation');
    return 0;
  }
  for (const line of describeFailures(summary)) console.log(`VIOLATED ${line}`);
  const [seed, violation] = [...summary.firstViolation][0] ?? [];
  if (seed === undefined || !violation) return 1;
  console.log(`\nseed ${seed}: ${violation.invariant}${violation.jobId ? ` (${violation.jobId})` : ''}: ${violation.message}`);
  const minimal = await shrink(generatePlan(seed, args.options), breaks(violation.invariant));
  const pools = minimal.plan.pools.map((p) => `${p.poolId} (agents ${p.agents.map((a) => `${a.agentId}:${a.behaviour}`).join(' ')}; items ${p.items.map((i) => i.itemId).join(' ')})`);
  console.log(`minimal plan after ${minimal.runs} runs: jobs ${minimal.plan.jobs.map((j) => j.jobId).join(', ')}; pools ${pools.join(', ')}; faults ${JSON.stringify(minimal.plan.faults)}; rates ${JSON.stringify(minimal.plan.rates)}`);
  for (const line of (await runPlan(minimal.plan, { keepTrace: true })).trace) console.log(`  ${line}`);
  console.log(`\nreplay in full: npm run simulate -- --seed ${seed} --jobs ${args.options.jobs} --regions ${args.options.regions} --pools ${args.options.pools} --max-timeout ${args.options.maxTimeoutSeconds} --faults ${args.options.faults.join(',') || 'none'} --trace`);
  return 1;
}

main().then(
  (code) => process.exit(code),
  (error: unknown) => {
    console.error((error as Error).message);
    process.exit(2);
  },
);
