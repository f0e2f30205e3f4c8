import type { Node } from 'constructs';
import { MAX_DURATION_SECONDS } from '../../shared/domain/time.js';

/** The seconds knobs the handlers read from their environment (`shared/config/lambda-env.ts`). */
export interface PolicySeconds {
  readonly defaultStuckThresholdSeconds: number;
  readonly gateFallbackSeconds: number;
  /** How often a gate-coordinated job reports progress to the gate; each report wakes the job once. */
  readonly gateReportIntervalSeconds: number;
  readonly gateStuckThresholdSeconds: number;
}

/** Everything the CDK app takes from context (`cdk.json` or `-c key=value`). */
export interface VigilConfig {
  readonly regions: readonly string[];
  readonly gateRegion: string;
  /** Absent: stacks stay account-agnostic and ARNs use `AWS::AccountId`, resolved at deploy time. */
  readonly account: string | undefined;
  readonly deletionProtection: boolean;
  /** Subscribed to every stack's alarm topic; absent: subscribe to the topics yourself. */
  readonly alarmEmail: string | undefined;
  /**
   * Active X-Ray tracing of every function. Off by default: the handlers add no segments of their
   * own, and Lambda traces the first request of each second, so a quiet stack traces most calls.
   */
  readonly tracing: boolean;
  /**
   * Which of Lambda's own log records reach CloudWatch (the functions log JSON). `WARN`, the default,
   * drops the START and REPORT records every invocation writes, most of the log bill on the hot
   * path; `INFO` keeps them, `DEBUG` adds init and runtime records.
   */
  readonly systemLogLevel: SystemLogLevel;
  /**
   * Also serve the token-authenticated worker and agent routes from a Lambda function URL, which
   * has no per-request charge and no per-route throttling (the README weighs the two).
   */
  readonly workerFunctionUrl: boolean;
  /**
   * The concurrency reserved for, and so the most taken by, the function behind the worker URL:
   * a flood of calls there cannot take the concurrency the timer and sweep functions need. Lambda
   * keeps 100 of the account's concurrency unreserved, so this needs a quota of at least 100 more;
   * 0 reserves nothing (an account with a small quota), and leaves the URL uncapped.
   */
  readonly workerUrlConcurrency: number;
  /**
   * The concurrency reserved for each stack's timer queue consumer, which is also the most its SQS
   * event source invokes at once (`maxConcurrency`), so a busy account cannot throttle wake-ups into
   * the dead-letter queue. 0 reserves nothing and leaves the event source uncapped.
   */
  readonly timerConsumerConcurrency: number;
  /**
   * The concurrency reserved for each stack's backstop sweep, so a busy account cannot throttle a
   * minute's sweep away. 0 reserves nothing.
   */
  readonly sweepConcurrency: number;
  readonly policy: PolicySeconds;
}

/** The context keys that reserve Lambda concurrency for a function; a function names at most one. */
export type ConcurrencyReservation = 'workerUrlConcurrency' | 'timerConsumerConcurrency' | 'sweepConcurrency';

/** What `reservation` reserves under `config`: undefined when it is 0 (reserve nothing) or absent. */
export function reservedConcurrencyOf(config: VigilConfig, reservation: ConcurrencyReservation | undefined): number | undefined {
  if (reservation === undefined) return undefined;
  const count = config[reservation];
  return count > 0 ? count : undefined;
}

/**
 * Lambda polls an SQS queue with five batches at once and adds up to 300 a minute while messages
 * wait: a consumer reserved below that without a cap on its event source is throttled, and every
 * throttled batch counts a receive toward the DLQ. So the event source is capped at the
 * reservation; 10 runs 100 wake-ups at once (batches of 10), about 1,000 a second at the ~90 ms a
 * fire takes (README, "Backstop sweep capacity"), twenty times what the sweep recovers.
 */
export const DEFAULT_TIMER_CONSUMER_CONCURRENCY = 10;
/** One sweep runs at a time: a run ends within its 55 s timeout, before the next minute's starts. */
export const DEFAULT_SWEEP_CONCURRENCY = 1;
/** An SQS event source's `maxConcurrency` takes 2–1,000. */
const EVENT_SOURCE_CONCURRENCY = { min: 2, max: 1_000 } as const;

export const SYSTEM_LOG_LEVELS = ['WARN', 'INFO', 'DEBUG'] as const;
export type SystemLogLevel = (typeof SYSTEM_LOG_LEVELS)[number];

export const defaultPolicySeconds: PolicySeconds = {
  defaultStuckThresholdSeconds: 120,
  gateFallbackSeconds: 300,
  gateReportIntervalSeconds: 10,
  gateStuckThresholdSeconds: 180,
};

const REGION_PATTERN = /^[a-z]{2}(-[a-z]+)+-\d+$/;
const ACCOUNT_PATTERN = /^\d{12}$/;
const EMAIL_PATTERN = /^[^@\s]+@[^@\s]+\.[^@\s]+$/;

export class VigilConfigError extends Error {
  constructor(key: string, problem: string, fix: string) {
    super(`context '${key}' ${problem}; ${fix}`);
    this.name = 'VigilConfigError';
  }
}

/** Reads and validates the context. `env` supplies `CDK_DEFAULT_ACCOUNT` when the CLI has credentials. */
export function readVigilConfig(node: Node, env: NodeJS.ProcessEnv = process.env): VigilConfig {
  const regions = readRegions(node.tryGetContext('regions'));
  const gateRegion = readRegion('gateRegion', node.tryGetContext('gateRegion') ?? regions[0]);
  const workerFunctionUrl = readBoolean('workerFunctionUrl', node.tryGetContext('workerFunctionUrl'), false);
  return {
    regions,
    gateRegion,
    account: readAccount(node.tryGetContext('account') ?? env['CDK_DEFAULT_ACCOUNT']),
    deletionProtection: readBoolean('deletionProtection', node.tryGetContext('deletionProtection'), true),
    alarmEmail: readEmail('alarmEmail', node.tryGetContext('alarmEmail')),
    tracing: readBoolean('tracing', node.tryGetContext('tracing'), false),
    systemLogLevel: readSystemLogLevel(node.tryGetContext('systemLogLevel')),
    workerFunctionUrl,
    workerUrlConcurrency: readWorkerUrlConcurrency(node.tryGetContext('workerUrlConcurrency'), workerFunctionUrl),
    timerConsumerConcurrency: readTimerConsumerConcurrency(node.tryGetContext('timerConsumerConcurrency')),
    sweepConcurrency: readSweepConcurrency(node.tryGetContext('sweepConcurrency')),
    policy: readPolicy(node),
  };
}

/**
 * The gate learns of a region's progress only from its reports: with reports rarer than the gate's
 * stuck threshold, the stuck rule would wait a whole interval past the threshold (late, never early).
 */
function readPolicy(node: Node): PolicySeconds {
  const policy: PolicySeconds = {
    defaultStuckThresholdSeconds: readSeconds(node, 'defaultStuckThresholdSeconds', MAX_DURATION_SECONDS),
    gateFallbackSeconds: readSeconds(node, 'gateFallbackSeconds', MAX_DURATION_SECONDS),
    gateReportIntervalSeconds: readSeconds(node, 'gateReportIntervalSeconds'),
    gateStuckThresholdSeconds: readSeconds(node, 'gateStuckThresholdSeconds', MAX_DURATION_SECONDS),
  };
  if (policy.gateReportIntervalSeconds >= policy.gateStuckThresholdSeconds) {
    throw new VigilConfigError(
      'gateReportIntervalSeconds',
      `is ${policy.gateReportIntervalSeconds}, not below gateStuckThresholdSeconds (${policy.gateStuckThresholdSeconds}): the gate would hear of progress too rarely to judge a region stuck on time`,
      'lower gateReportIntervalSeconds or raise gateStuckThresholdSeconds',
    );
  }
  return policy;
}

function readRegions(raw: unknown): string[] {
  // `-c regions=a,b` arrives as a string, cdk.json as an array.
  const list = typeof raw === 'string' ? raw.split(',') : raw;
  if (!Array.isArray(list) || list.length === 0) {
    throw new VigilConfigError('regions', 'is missing or empty', 'set it in cdk.json or pass -c regions=us-east-1,eu-west-1');
  }
  const regions = list.map((region: unknown) => readRegion('regions', typeof region === 'string' ? region.trim() : region));
  if (new Set(regions).size !== regions.length) {
    throw new VigilConfigError('regions', `names a region twice (${regions.join(',')})`, 'list each region once');
  }
  return regions;
}

function readRegion(key: string, raw: unknown): string {
  if (typeof raw !== 'string' || !REGION_PATTERN.test(raw)) {
    throw new VigilConfigError(key, `has '${String(raw)}', which is not an AWS region name`, 'use names like us-east-1');
  }
  return raw;
}

function readAccount(raw: unknown): string | undefined {
  if (raw === undefined || raw === '') return undefined;
  const account = String(raw);
  if (!ACCOUNT_PATTERN.test(account)) {
    throw new VigilConfigError('account', `has '${account}', which is not a 12-digit AWS account id`, 'pass -c account=123456789012 or omit it');
  }
  return account;
}

function readEmail(key: string, raw: unknown): string | undefined {
  if (raw === undefined || raw === '') return undefined;
  if (typeof raw !== 'string' || !EMAIL_PATTERN.test(raw)) {
    throw new VigilConfigError(key, `has '${String(raw)}', which is not an email address`, 'pass -c alarmEmail=oncall@example.com or omit it');
  }
  return raw;
}

function readBoolean(key: string, raw: unknown, fallback: boolean): boolean {
  if (raw === undefined) return fallback;
  if (raw === true || raw === 'true') return true;
  if (raw === false || raw === 'false') return false;
  throw new VigilConfigError(key, `has '${String(raw)}'`, 'use true or false');
}

function readSystemLogLevel(raw: unknown): SystemLogLevel {
  if (raw === undefined) return 'WARN';
  const level = SYSTEM_LOG_LEVELS.find((known) => known === String(raw).toUpperCase());
  if (!level) throw new VigilConfigError('systemLogLevel', `has '${String(raw)}'`, `use one of ${SYSTEM_LOG_LEVELS.join(', ')}`);
  return level;
}

/**
 * `atMost`: a default a job gets, or a wait its deadline gets, is held to what a job may name itself
 * (one year): beyond, its deadline leaves the Date range and every answer that shows it fails.
 */
function readSeconds(node: Node, key: keyof PolicySeconds, atMost = Infinity): number {
  const raw: unknown = node.tryGetContext(key);
  if (raw === undefined) return defaultPolicySeconds[key];
  const seconds = Number(raw);
  if (!Number.isFinite(seconds) || seconds <= 0) {
    throw new VigilConfigError(key, `has '${String(raw)}'`, 'use a positive number of seconds');
  }
  if (seconds > atMost) {
    throw new VigilConfigError(key, `has ${seconds} seconds, more than the ${atMost} (one year) a job may name`, `use at most ${atMost} seconds`);
  }
  return seconds;
}

function readWorkerUrlConcurrency(raw: unknown, workerFunctionUrl: boolean): number {
  const key = 'workerUrlConcurrency';
  if (raw === undefined) return 100;
  if (!workerFunctionUrl) throw new VigilConfigError(key, 'is set but there is no worker URL', 'pass -c workerFunctionUrl=true as well, or leave it out');
  const count = wholeNumber(raw);
  if (count === undefined || count < 0) throw new VigilConfigError(key, `has '${String(raw)}'`, 'use a whole number: 0 reserves nothing, N reserves N');
  return count;
}

function readTimerConsumerConcurrency(raw: unknown): number {
  if (raw === undefined) return DEFAULT_TIMER_CONSUMER_CONCURRENCY;
  const count = wholeNumber(raw);
  if (count === 0) return 0;
  if (count === undefined || count < EVENT_SOURCE_CONCURRENCY.min || count > EVENT_SOURCE_CONCURRENCY.max) {
    throw new VigilConfigError(
      'timerConsumerConcurrency',
      `has '${String(raw)}'`,
      `use a whole number from ${EVENT_SOURCE_CONCURRENCY.min} to ${EVENT_SOURCE_CONCURRENCY.max} (it is also the SQS event source's maximum concurrency, which takes no other), or 0 to reserve nothing`,
    );
  }
  return count;
}

function readSweepConcurrency(raw: unknown): number {
  if (raw === undefined) return DEFAULT_SWEEP_CONCURRENCY;
  const count = wholeNumber(raw);
  if (count !== 0 && count !== 1) {
    throw new VigilConfigError('sweepConcurrency', `has '${String(raw)}'`, 'use 1 (a sweep ends before the next minute\'s starts, so more is never used) or 0 to reserve nothing');
  }
  return count;
}

/** `-c key=N` arrives as text, cdk.json as a number; anything else (empty, a fraction, true) is no count. */
function wholeNumber(raw: unknown): number | undefined {
  if (typeof raw !== 'number' && (typeof raw !== 'string' || raw.trim() === '')) return undefined;
  const count = Number(raw);
  return Number.isInteger(count) ? count : undefined;
}
