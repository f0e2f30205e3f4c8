import { generatePlan, type PlanOptions } from './world/generate-plan.js';
import type { Violation } from './world/invariants.js';
import { runPlan, type RunOptions, type RunResult } from './run-plan.js';
import { CrashTally } from './world/crash-tally.js';

export interface SweepSummary {
  seeds: number;
  steps: number;
  simulatedMs: number;
  jobs: number;
  /** Seeds that broke each invariant, in seed order. */
  failingSeeds: Map<string, number[]>;
  /** The first violation of each failing seed. */
  firstViolation: Map<number, Violation>;
  largestItemBytes: number;
  /** Crashes by point and route over every seed. */
  crashes: CrashTally;
}

/** Runs seeds `from … from + count - 1` and gathers what broke where. */
export async function sweepSeeds(
  from: number,
  count: number,
  options: PlanOptions,
  runOptions: RunOptions = {},
  onResult?: (result: RunResult) => void,
): Promise<SweepSummary> {
  const summary: SweepSummary = { seeds: 0, steps: 0, simulatedMs: 0, jobs: 0, failingSeeds: new Map(), firstViolation: new Map(), largestItemBytes: 0, crashes: new CrashTally() };
  for (let seed = from; seed < from + count; seed++) {
    const plan = generatePlan(seed, options);
    const result = await runPlan(plan, runOptions);
    onResult?.(result);
    summary.seeds++;
    summary.steps += result.steps;
    summary.simulatedMs += result.simulatedMs;
    summary.jobs += plan.jobs.length;
    summary.largestItemBytes = Math.max(summary.largestItemBytes, result.largestItemBytes);
    summary.crashes.add(result.crashes);
    const first = result.violations[0];
    if (first) summary.firstViolation.set(seed, first);
    for (const invariant of new Set(result.violations.map((v) => v.invariant))) {
      const seeds = summary.failingSeeds.get(invariant) ?? [];
      seeds.push(seed);
      summary.failingSeeds.set(invariant, seeds);
    }
  }
  return summary;
}

/** One line per broken invariant: how many seeds, and the first few to replay. */
export function describeFailures(summary: SweepSummary): string[] {
  return [...summary.failingSeeds].map(
    ([invariant, seeds]) => `${invariant}: ${seeds.length} of ${summary.seeds} seeds (first: ${seeds.slice(0, 8).join(', ')})`,
  );
}
