import { withExecution, withTimeoutStat } from '../../../shared/domain/pools/item-history.js';
import { ITEM_BOUNDS, newItemStats, newPoolItem, type HistoryEntry, type ItemStats, type PoolItem } from '../../../shared/domain/pools/pool-item.js';
import { T0 } from '../../support/fixtures.js';

/**
 * A JSON value of `bytes` bytes made of backslashes: the worst case for an answer, since the Lambda
 * proxy envelope escapes each one again.
 */
export function escapedPayload(bytes: number): { blob: string } {
  const overhead = JSON.stringify({ blob: '' }).length;
  return { blob: '\\'.repeat(Math.floor((bytes - overhead) / 2)) };
}

export const longId = (prefix: string, n: number) => `${prefix}-${n}-`.padEnd(128, 'x');

/** A history entry with as many refused results as the bounds keep, each as large as kept whole. */
function fullEntry(attempt: number): HistoryEntry {
  const late = { outcome: 'failed', result: escapedPayload(ITEM_BOUNDS.lateResultBytes - 40) };
  return {
    attempt,
    agentId: longId('agent', attempt),
    startedAt: T0,
    endedAt: T0 + 1_000,
    outcome: 'timed_out',
    timeout: { type: 'command', commandIndex: 99, commandType: 'x'.repeat(64), limitSeconds: 31_536_000, elapsedSeconds: 31_536_000 },
    resolution: 'force',
    lateResults: Array.from({ length: ITEM_BOUNDS.lateResultsPerAttempt }, () => ({ at: T0, call: 'complete', result: late })),
    lateResultsDropped: 1_000,
  };
}

/** A number as long as a double gets (17 significant digits: the most DynamoDB stores of one). */
const longest = (whole: number) => whole + 0.123456789012;

/**
 * Metric counters at their bounds: every command type counted by name at the contract's 64
 * characters (and the rest under `(other)`), the last executions and timeouts each as long as they
 * get, the timeouts' agents with 128-character ids.
 */
export function largestStats(): ItemStats {
  let stats: ItemStats = { ...newItemStats(), agentsStarted: longest(1e4), agentsCompleted: longest(1e4) };
  for (let i = 0; i <= ITEM_BOUNDS.commandTypesCounted; i++) {
    const timeout = { type: 'command' as const, commandIndex: 99, commandType: `${i}`.padStart(64, 'x'), limitSeconds: longest(1e7), elapsedSeconds: longest(1e7) };
    stats = withTimeoutStat(stats, T0 + i, 1_000 + i, longId('agent', i), timeout);
  }
  for (let i = 0; i < ITEM_BOUNDS.recentExecutions; i++) stats = withExecution(stats, T0 + i, longest(1e7));
  return { ...stats, timeoutsByType: { ...stats.timeoutsByType, agent: longest(1e4) } };
}

/** An item with every bounded field at its bound: what the pool's answers must still carry. */
export function largestItem(poolId: string, itemId: string, state: PoolItem['state']): PoolItem {
  const payload = escapedPayload(ITEM_BOUNDS.payloadBytes);
  return {
    ...newPoolItem(poolId, itemId, payload),
    state,
    attempt: 1_000,
    timeoutCount: 1_000,
    result: payload,
    partialResult: payload,
    lastCheckpoint: { state: payload, progress: 0.5, at: T0, attempt: 1_000 },
    history: Array.from({ length: ITEM_BOUNDS.history }, (_, i) => fullEntry(1_000 - ITEM_BOUNDS.history + i + 1)),
    historyDropped: 980,
    stats: largestStats(),
  };
}

/** What Lambda returns for an HTTP answer: the body travels as an escaped string inside the envelope. */
export const lambdaAnswerBytes = (body: unknown): number =>
  Buffer.byteLength(JSON.stringify({ statusCode: 200, headers: { 'content-type': 'application/json' }, body: JSON.stringify(body) }), 'utf8');

export const LAMBDA_ANSWER_LIMIT = 6 * 1024 * 1024;
export const DYNAMO_ITEM_LIMIT = 400 * 1024;
