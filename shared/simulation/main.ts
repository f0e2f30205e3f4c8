import { performance } from 'node:perf_hooks';
import { generatePlan, DEFAULT_PLAN_OPTIONS } from './world/generate-plan.js';
import { runPlan } from './run-plan.js';
import { FAULT_KINDS, type FaultKind } from './world/plan.js';
import { describeFailures, sweepSeeds } from './sweep.js';
import { breaks, shrink } from './shrink.js';
import type { StoreKind } from './dynamo/sim-store.js';

function parseArgs(argv: readonly string[]) {
  const flags = new Map<string, string>();
  for (let i = 0; i < argv.length; i++) {
    const arg = argv[i] ?? '';
    if (!arg.startsWith('--')) throw new Error(`Unexpected argument '${arg}'. Flags: --seed S --seeds N --jobs J --regions R --pools P --max-timeout S --faults a,b --store memory|dynalite --trace`);
    const [name, inline] = arg.slice(2).split('=', 2) as [string, string | undefined];
    if (name === 'trace') flags.set(name, 'true');
    else flags.set(name, inline ?? argv[++i] ?? '');
  }
  const int = (name: string, fallback: number) => {
    const value = flags.get(name);
    if (value === undefined) return fallback;
    const parsed = Number(value);
    if (!Number.isInteger(parsed) || parsed < 0) throw new Error(`--${name} must be a whole number ≥ 0, got '${value}'`);
    return parsed;
  };
  const faultList = flags.get('faults');
  const faults = faultList === undefined || faultList === 'all' ? [...FAULT_KINDS] : faultList === 'none' ? [] : faultList.split(',');
  const unknown = faults.filter((f) => !(FAULT_KINDS as readonly string[]).includes(f));
  if (unknown.length > 0) throw new Error(`Unknown fault kind(s): ${unknown.join(', ')}. Known: ${FAULT_KINDS.join(', ')}, or all / none.`);
  const store = flags.get('store') ?? 'memory';
  if (store !== 'memory' && store !== 'dynalite') throw new Error(`--store must be memory or dynalite, got '${store}'`);
  const known = new Set(['seed', 'seeds', 'jobs', 'regions', 'pools', 'max-timeout', 'faults', 'trace', 'store']);
  const extra = [...flags.keys()].filter((f) => !known.has(f));
  if (extra.length > 0) throw new Error(`Unknown flag(s): ${extra.map((f) => `--${f}`).join(', ')}`);
  return {
    seed: int('seed', 1),
    seeds: int('seeds', 1),
    trace: flags.has('trace'),
    store: store as StoreKind,
    options: {
      jobs: int('jobs', DEFAULT_PLAN_OPTIONS.jobs),
      regions: Math.max(1, int('regions', DEFAULT_PLAN_OPTIONS.regions)),
      pools: int('pools', 0),
      maxTimeoutSeconds: Math.max(60, int('max-timeout', 600)),
      faults: faults as FaultKind[],
    },
  };
}

/** `npm run simulate -- --seed S [--seeds N] [--jobs J] [--regions R] [--pools P] [--max-timeout S] [--faults a,b] [--store memory|dynalite] [--trace]` */
async function main(): Promise<number> {
  const args = parseArgs(process.argv.slice(2));
  if (args.options.pools > 0) console.log('note: --pools is accepted, but agent pools are not simulated yet (their use cases are not on main)');
  const started = performance.now();
  if (args.seeds === 1) {
    const result = await runPlan(generatePlan(args.seed, args.options), { keepTrace: args.trace, store: args.store });
    for (const line of result.trace) console.log(line);
    console.log(`seed ${args.seed}: ${result.steps} steps, ${(result.simulatedMs / 3_600_000).toFixed(2)} h simulated, digest ${result.digest}`);
  }
  const summary = await sweepSeeds(args.seed, args.seeds, args.options, { store: args.store });
  const seconds = (performance.now() - started) / 1000;
  console.log(
    `${summary.seeds} seed(s) from ${args.seed} × ${args.options.jobs} jobs × faults [${args.options.faults.join(',') || 'none'}]: ` +
      `${summary.steps} steps, ${(summary.simulatedMs / 3_600_000).toFixed(1)} h simulated in ${seconds.toFixed(1)} s; largest item ${summary.largestItemBytes} B`,
  );
  if (summary.failingSeeds.size === 0) {
    console.log('no violation');
    return 0;
  }
  for (const line of describeFailures(summary)) console.log(`VIOLATED ${line}`);
  const [seed, violation] = [...summary.firstViolation][0] ?? [];
  if (seed === undefined || !violation) return 1;
  console.log(`\nseed ${seed}: ${violation.invariant}${violation.jobId ? ` (${violation.jobId})` : ''}: ${violation.message}`);
  const minimal = await shrink(generatePlan(seed, args.options), breaks(violation.invariant));
  console.log(`minimal plan after ${minimal.runs} runs: jobs ${minimal.plan.jobs.map((j) => j.jobId).join(', ')}; faults ${JSON.stringify(minimal.plan.faults)}; rates ${JSON.stringify(minimal.plan.rates)}`);
  for (const line of (await runPlan(minimal.plan, { keepTrace: true })).trace) console.log(`  ${line}`);
  console.log(`\nreplay in full: npm run simulate -- --seed ${seed} --jobs ${args.options.jobs} --regions ${args.options.regions} --max-timeout ${args.options.maxTimeoutSeconds} --faults ${args.options.faults.join(',') || 'none'} --trace`);
  return 1;
}

main().then(
  (code) => process.exit(code),
  (error: unknown) => {
    console.error((error as Error).message);
    process.exit(2);
  },
);
