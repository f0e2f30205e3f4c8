import { parseArgs } from 'node:util';
import type { StoreKind } from './dynamo/sim-store.js';
import { DEFAULT_PLAN_OPTIONS, type PlanOptions } from './world/generate-plan.js';
import { FAULT_KINDS, type FaultKind } from './world/plan.js';

export const USAGE =
  'npm run simulate -- [--seed S] [--seeds N] [--jobs J] [--regions R] [--pools P] [--max-timeout SECONDS] [--faults all|none|a,b] [--store memory|dynalite] [--trace]';

export interface SimulateArgs {
  seed: number;
  seeds: number;
  trace: boolean;
  store: StoreKind;
  options: PlanOptions & { maxTimeoutSeconds: number };
}

/** A command-line mistake: the message names the flag and how to put it right. */
export class UsageError extends Error {
  constructor(message: string) {
    super(`${message}\nusage: ${USAGE}`);
    this.name = 'UsageError';
  }
}

const OPTIONS = {
  seed: { type: 'string' },
  seeds: { type: 'string' },
  jobs: { type: 'string' },
  regions: { type: 'string' },
  pools: { type: 'string' },
  'max-timeout': { type: 'string' },
  faults: { type: 'string' },
  store: { type: 'string' },
  trace: { type: 'boolean' },
} as const;

/** A value each flag that takes one could be given, for the message of a flag given without one. */
const EXAMPLE_VALUES: Record<Exclude<keyof typeof OPTIONS, 'trace'>, string> = {
  seed: '7',
  seeds: '100',
  jobs: '4',
  regions: '2',
  pools: '1',
  'max-timeout': '600',
  faults: 'none',
  store: 'memory',
};

/** `e.g. --seeds 100 or --seeds=100`, for the flag `node:util` names in its message (`'--seeds <value>'`). */
function valueExample(message: string): string {
  const flag = /'--([a-z-]+)/.exec(message)?.[1] ?? '';
  const value = Object.hasOwn(EXAMPLE_VALUES, flag) ? EXAMPLE_VALUES[flag as keyof typeof EXAMPLE_VALUES] : undefined;
  return value === undefined ? 'right after the flag or after = (--flag=value)' : `e.g. --${flag} ${value} or --${flag}=${value}`;
}

/** `node:util` raises these for a flag it does not know, a value it lacks, or a bare word. */
function explain(error: unknown): UsageError {
  const code = (error as { code?: string }).code;
  const message = (error as Error).message;
  if (code === 'ERR_PARSE_ARGS_UNKNOWN_OPTION') return new UsageError(`${message.split('.')[0]}: not a simulator flag.`);
  if (code === 'ERR_PARSE_ARGS_INVALID_OPTION_VALUE') return new UsageError(`${message.split('.')[0]}: give the flag a value, ${valueExample(message)}.`);
  if (code === 'ERR_PARSE_ARGS_UNEXPECTED_POSITIONAL') return new UsageError(`${message.split('.')[0]}: every argument is a --flag (values follow their flag).`);
  return new UsageError(message);
}

function wholeNumber(flag: string, value: string | undefined, fallback: number, min = 0): number {
  if (value === undefined) return fallback;
  const parsed = Number(value);
  if (value.trim() === '' || !Number.isInteger(parsed) || parsed < min) throw new UsageError(`--${flag} must be a whole number ≥ ${min}, got '${value}'.`);
  return parsed;
}

function faultList(value: string | undefined): FaultKind[] {
  if (value === undefined || value === 'all') return [...FAULT_KINDS];
  if (value === 'none') return [];
  const faults = value.split(',').map((fault) => fault.trim());
  const unknown = faults.filter((fault) => !(FAULT_KINDS as readonly string[]).includes(fault));
  if (unknown.length > 0) throw new UsageError(`--faults: unknown fault kind(s) ${unknown.join(', ')}. Known: ${FAULT_KINDS.join(', ')}; or all, or none.`);
  return faults as FaultKind[];
}

/** The simulator's flags, strictly: every mistake is a UsageError naming its flag. */
export function parseSimulateArgs(argv: readonly string[]): SimulateArgs {
  let values: ReturnType<typeof parseArgs<{ args: string[]; options: typeof OPTIONS; strict: true }>>['values'];
  try {
    ({ values } = parseArgs({ args: [...argv], options: OPTIONS, strict: true, allowPositionals: false }));
  } catch (error) {
    throw explain(error);
  }
  const store = values.store ?? 'memory';
  if (store !== 'memory' && store !== 'dynalite') throw new UsageError(`--store must be memory or dynalite, got '${store}'.`);
  return {
    seed: wholeNumber('seed', values.seed, 1),
    seeds: wholeNumber('seeds', values.seeds, 1, 1),
    trace: values.trace ?? false,
    store,
    options: {
      jobs: wholeNumber('jobs', values.jobs, DEFAULT_PLAN_OPTIONS.jobs),
      regions: wholeNumber('regions', values.regions, DEFAULT_PLAN_OPTIONS.regions, 1),
      pools: wholeNumber('pools', values.pools, DEFAULT_PLAN_OPTIONS.pools),
      maxTimeoutSeconds: wholeNumber('max-timeout', values['max-timeout'], 600, 60),
      faults: faultList(values.faults),
    },
  };
}
