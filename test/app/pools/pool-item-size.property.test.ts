import { ScanCommand } from '@aws-sdk/lib-dynamodb';
import fc from 'fast-check';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { TIMER_INDEX } from '../../../shared/adapters/aws/jobs-table.js';
import { retryDeadLetter } from '../../../shared/app/pools/dead-letters.js';
import { answerEscalation, listEscalations } from '../../../shared/app/pools/escalations.js';
import { firePoolTimer } from '../../../shared/app/pools/fire-pool-timer.js';
import { claimPoolItem } from '../../../shared/app/pools/claim-item.js';
import { answerBody } from '../../../shared/contract/pool-requests.js';
import { VigilError } from '../../../shared/domain/errors.js';
import type { AgentCall } from '../../../shared/domain/pools/agent-calls.js';
import type { EscalationAnswer } from '../../../shared/domain/pools/item-answers.js';
import { AttemptTerminatingError, StaleAttemptError } from '../../../shared/domain/pools/pool-errors.js';
import { ITEM_BOUNDS, itemTimerId, parseItemTimerId, type PoolItem } from '../../../shared/domain/pools/pool-item.js';
import { storedBytes } from '../../../shared/domain/stored-size.js';
import { at } from '../../support/fixtures.js';
import { startTestDynamo } from '../../support/dynalite.js';
import { testManager, type TestDynamo, type TestManager } from '../support/test-manager.js';
import { DYNAMO_ITEM_LIMIT, longId } from './largest-items.js';
import { newPool, send, type Claimed } from './pool-test-support.js';

/** Plain characters: JSON's size is then DynamoDB's size of the string, so the check below is exact, not generous. */
const payload = (bytes: number, tag: string) => ({ tag, blob: 'x'.repeat(bytes - 30 - tag.length) });
const maxPayload = (tag: string) => payload(ITEM_BOUNDS.payloadBytes, tag);
/**
 * Small numbers: DynamoDB stores each in 3 bytes against JSON's 2 (a review finding: bounds counted
 * JSON, and such payloads grew an item past 400 KB). Sized to the bound as stored.
 */
function digits(bytes: number, tag: string) {
  const value = { tag, n: Array.from({ length: Math.floor((bytes - 12 - tag.length) / 3) }, () => 1) };
  if (storedBytes(value) > bytes) throw new Error(`a ${storedBytes(value)} B payload for a ${bytes} B bound`);
  return value;
}
const maxDigits = (tag: string) => digits(ITEM_BOUNDS.payloadBytes, tag);
/** The largest config the API takes: 60 KB of agent_template, sent with every claim and stored on the pool. */
const bigTemplate = Array.from({ length: 4 }, (_, i) => ({ [i % 2 ? 'shell' : 'claude']: `step ${i} `.padEnd(15_000, 'y') }));

const LATE_CALLS = new Set(['complete', 'terminated', 'checkpoint', 'command_finish']);

type Step =
  | { kind: 'claim'; agent: number }
  | { kind: 'call'; claimsBack: number; call: 'heartbeat' | 'checkpoint' | 'complete' | 'terminated' | 'command_start' | 'command_finish' }
  | { kind: 'advance'; seconds: number }
  | { kind: 'retry_dlq'; item: number }
  | { kind: 'answer'; option: 'clarify' | 'split' | 'increase_timeout' | 'skip' };

// Weighted so sequences reach deep states: attempts pile up, time out, escalate, get answered.
const step: fc.Arbitrary<Step> = fc.oneof(
  { weight: 3, arbitrary: fc.record({ kind: fc.constant('claim' as const), agent: fc.integer({ min: 0, max: 3 }) }) },
  {
    weight: 6,
    arbitrary: fc.record({
      kind: fc.constant('call' as const),
      claimsBack: fc.nat({ max: 5 }),
      // Completions are rare so items live through many attempts.
      call: fc.constantFrom('heartbeat' as const, 'checkpoint' as const, 'checkpoint' as const, 'terminated' as const, 'terminated' as const, 'command_start' as const, 'command_finish' as const, 'complete' as const),
    }),
  },
  { weight: 4, arbitrary: fc.record({ kind: fc.constant('advance' as const), seconds: fc.double({ min: 0.3, max: 4, noNaN: true }) }) },
  { weight: 1, arbitrary: fc.record({ kind: fc.constant('retry_dlq' as const), item: fc.nat({ max: 2 }) }) },
  {
    weight: 2,
    arbitrary: fc.record({ kind: fc.constant('answer' as const), option: fc.constantFrom('clarify' as const, 'split' as const, 'increase_timeout' as const, 'skip' as const) }),
  },
);

function agentCallOf(kind: Extract<Step, { kind: 'call' }>['call'], tag: string): AgentCall {
  switch (kind) {
    case 'heartbeat':
      return { type: 'heartbeat' };
    case 'checkpoint':
      return { type: 'checkpoint', state: maxDigits(tag), progress: 0.5 };
    case 'complete':
      return { type: 'complete', outcome: 'failed', result: maxPayload(tag) };
    case 'terminated':
      return { type: 'terminated', cleanup: 'failed', partialResult: maxDigits(tag) };
    case 'command_start':
      return { type: 'command_start', index: 0, commandType: 'claude' };
    case 'command_finish':
      return { type: 'command_finish', index: 0, outcome: 'failed' };
  }
}

/** The largest answer of each kind the API accepts (checked against the request schema itself). */
function largestAnswer(option: Extract<Step, { kind: 'answer' }>['option'], seq: number): EscalationAnswer {
  const subtaskCount = 100;
  const perInput = Math.floor(ITEM_BOUNDS.subtaskInputsBytes / subtaskCount);
  const answer: EscalationAnswer =
    option === 'clarify'
      ? { option, clarification: 'c'.repeat(4_096) }
      : option === 'split'
        ? { option, subtasks: Array.from({ length: subtaskCount }, (_, i) => ({ itemId: longId(`s${seq}`, i), input: digits(perInput, `s${i}`) })) }
        : option === 'increase_timeout'
          ? { option, timeoutSeconds: 5 }
          : { option };
  expect(answerBody.safeParse(answer).success).toBe(true);
  return answer;
}

const EXPECTED_REFUSALS = new Set(['stale_attempt', 'attempt_terminating', 'item_not_in_dlq', 'escalation_answered', 'escalation_not_found', 'pool_finished', 'command_not_started', 'command_out_of_order', 'invalid_request']);

describe('no sequence of agent and human calls grows a pool item past 400 KB (on dynalite, through the use cases)', () => {
  let dynamo: TestDynamo;
  beforeAll(async () => {
    dynamo = await startTestDynamo();
  });
  afterAll(() => dynamo.close());

  /** Late results kept or counted on a claim's own history entry. */
  async function lateResultsOf(m: TestManager, poolId: string, claimed: Claimed): Promise<number> {
    const entry = (await m.deps.pools.getItem(poolId, claimed.itemId))?.history.find((past) => past.attempt === claimed.attempt);
    return (entry?.lateResults?.length ?? 0) + (entry?.lateResultsDropped ?? 0);
  }

  /**
   * The pool's items with a wake-up due by now, from the sparse `timers` index the sweep reads: each
   * item's write sets its entry there (or removes it) with its `timerDueAt`. Reading every item of the
   * pool whole on each step instead (up to hundreds of items, each up to 400 KB) was a third of this test's time.
   */
  async function dueItemIds(m: TestManager, poolId: string): Promise<Set<string>> {
    const due = new Set<string>();
    let startKey: Record<string, unknown> | undefined;
    do {
      const page = await dynamo.doc.send(
        new ScanCommand({
          TableName: m.tableName,
          IndexName: TIMER_INDEX,
          FilterExpression: 'timerDueAt <= :now',
          ExpressionAttributeValues: { ':now': m.clock.now() },
          ExclusiveStartKey: startKey,
        }),
      );
      for (const entry of page.Items ?? []) {
        const ids = parseItemTimerId(String(entry['jobId']));
        if (ids?.poolId === poolId) due.add(ids.itemId);
      }
      startKey = page.LastEvaluatedKey;
    } while (startKey);
    return due;
  }

  /** Every row of the table: every page of the scan, not only the first 1 MB. */
  async function everyRow(m: TestManager): Promise<Record<string, unknown>[]> {
    const rows: Record<string, unknown>[] = [];
    let startKey: Record<string, unknown> | undefined;
    do {
      const page = await dynamo.doc.send(new ScanCommand({ TableName: m.tableName, ConsistentRead: true, ExclusiveStartKey: startKey }));
      rows.push(...(page.Items ?? []));
      startKey = page.LastEvaluatedKey;
    } while (startKey);
    return rows;
  }

  it('at the largest payloads the API takes, every write succeeds, every item stays < 400 KB, every refused result is kept or counted', async () => {
    let run = 0;
    await fc.assert(
      fc.asyncProperty(fc.array(step, { minLength: 40, maxLength: 120 }), async (steps) => {
        // Prepare: a fresh pool whose items cycle through attempts (short limits, stalls, escalation after 1 or 2 timeouts),
        // in a table of its own, so the check below reads every row this run wrote and no other run's
        const m = await testManager(dynamo);
        const poolId = `prop-${run++}`;
        const initialIds = Array.from({ length: 3 }, (_, i) => longId('item', i));
        await newPool(
          m.deps,
          {
            agent_timeout_secs: 3,
            agent_template: bigTemplate,
            checkpoint_interval_secs: 2,
            checkpoint_timeout_secs: 1,
            stall_threshold: 2,
            timeout_escalation: 1 + (run % 2),
            timeout_config: { timeout_action: run % 3 === 0 ? 'dlq' : 'retry', cleanup_grace_period_secs: 1 },
          },
          initialIds,
          poolId,
        );
        let seconds = 0;
        m.clock.set(at(seconds));
        const claims: Claimed[] = [];
        /** Refused calls that carried a result, per item and attempt: each must be kept or counted. */
        const refused = new Map<string, number>();
        const knownIds = new Set(initialIds);
        // Act
        for (const [index, next] of steps.entries()) {
          try {
            if (next.kind === 'claim') {
              // The longest ids the API takes: every attempt keeps its agent's and its claim's.
              const agentId = longId(`agent-${next.agent}`, 0);
              const claimed = await claimPoolItem(m.deps, poolId, { agentId, kind: 'agent', claimId: longId(`claim-${index}`, 0) });
              if (claimed) claims.push({ itemId: claimed.itemId, attempt: claimed.attempt, token: claimed.token, agentId });
            } else if (next.kind === 'call') {
              const claimed = claims[claims.length - 1 - (next.claimsBack % Math.max(claims.length, 1))]; // mostly the latest, sometimes an older (stale) one
              if (!claimed) continue;
              const call = agentCallOf(next.call, `${index}`);
              const lateBefore = call.type === 'terminated' ? await lateResultsOf(m, poolId, claimed) : 0;
              try {
                await send(m.deps, claimed, call, poolId);
                // A `terminated` past the grace period is answered and its report kept as a late result.
                if (call.type === 'terminated' && (await lateResultsOf(m, poolId, claimed)) > lateBefore) {
                  const key = `${claimed.itemId}#${claimed.attempt}`;
                  refused.set(key, (refused.get(key) ?? 0) + 1);
                }
              } catch (error) {
                if ((error instanceof StaleAttemptError || error instanceof AttemptTerminatingError) && LATE_CALLS.has(call.type)) {
                  const key = `${claimed.itemId}#${claimed.attempt}`;
                  refused.set(key, (refused.get(key) ?? 0) + 1);
                }
                throw error;
              }
            } else if (next.kind === 'advance') {
              seconds += next.seconds;
              m.clock.set(at(seconds));
              // Each known item in turn, as it stands after the fires before it: a fire may wake others (a stopped pool's running items).
              let due = await dueItemIds(m, poolId);
              for (const itemId of knownIds) {
                if (!due.has(itemId)) continue;
                const item = await m.deps.pools.getItem(poolId, itemId);
                if (item?.timerDueAt !== undefined && item.timerDueAt <= m.clock.now()) {
                  await firePoolTimer(m.deps, { scope: 'pool', jobId: itemTimerId(poolId, itemId), fenceToken: item.attempt, dueAt: item.timerDueAt });
                  due = await dueItemIds(m, poolId);
                }
              }
            } else if (next.kind === 'retry_dlq') {
              await retryDeadLetter(m.deps, poolId, initialIds[next.item % initialIds.length] ?? '', 3);
            } else {
              const pending = (await listEscalations(m.deps, poolId)).escalations.find((e) => e.status === 'pending');
              if (!pending) continue;
              const answer = largestAnswer(next.option, index);
              await answerEscalation(m.deps, pending.escalationId, answer);
              for (const task of answer.subtasks ?? []) knownIds.add(task.itemId);
            }
          } catch (error) {
            // Only the contract's 4xx refusals are expected; anything else (a write DynamoDB refused) fails the property.
            if (!(error instanceof VigilError) || !EXPECTED_REFUSALS.has(error.code)) throw error;
          }
        }
        // Assess: sizes as stored (JSON of plain strings is what DynamoDB counts), and every refusal accounted for
        for (const stored of await everyRow(m)) expect(Buffer.byteLength(JSON.stringify(stored), 'utf8')).toBeLessThan(DYNAMO_ITEM_LIMIT);
        const items = new Map((await m.deps.pools.getItems([...knownIds].map((itemId) => ({ poolId, itemId })))).map((item) => [item.itemId, item]));
        for (const itemId of knownIds) {
          const item = items.get(itemId) as PoolItem;
          expect(item.history.length + (item.historyDropped ?? 0)).toBe(item.attempt);
          const kept = item.history.reduce((sum, entry) => sum + (entry.lateResults?.length ?? 0) + (entry.lateResultsDropped ?? 0), 0);
          const sent = [...refused.entries()].filter(([key]) => key.startsWith(`${itemId}#`)).reduce((sum, [, n]) => sum + n, 0);
          // Entries that left the history took their late results along (counted by historyDropped); the rest are here or counted.
          const sentToKeptEntries = item.history.reduce((sum, entry) => sum + (refused.get(`${itemId}#${entry.attempt}`) ?? 0), 0);
          expect(kept).toBe(sentToKeptEntries);
          expect(kept + (item.lateResultsDropped ?? 0)).toBeLessThanOrEqual(sent);
        }
      }),
      // No shrinking: each run is a few seconds of dynalite; the counterexample is printed as found.
      { numRuns: 10, endOnFailure: true },
    );
  }, 300_000);
});
