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
  readonly policy: PolicySeconds;
}

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
  const count = Number(raw);
  if (!Number.isInteger(count) || count < 0) throw new VigilConfigError(key, `has '${String(raw)}'`, 'use a whole number: 0 reserves nothing, N reserves N');
  return count;
}
