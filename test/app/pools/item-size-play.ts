import { expect } from 'vitest';
import { startCollection } from '../../../shared/app/pools/collect-checkpoints.js';
import { claimPoolItem } from '../../../shared/app/pools/claim-item.js';
import { createPool } from '../../../shared/app/pools/create-pool.js';
import { listDeadLetters, retryDeadLetter } from '../../../shared/app/pools/dead-letters.js';
import { answerEscalation, listEscalations } from '../../../shared/app/pools/escalations.js';
import { firePoolTimer } from '../../../shared/app/pools/fire-pool-timer.js';
import { boundedJson } from '../../../shared/contract/pool-requests.js';
import { VigilError } from '../../../shared/domain/errors.js';
import type { AgentCall, HeartbeatReply } from '../../../shared/domain/pools/agent-calls.js';
import { AttemptTerminatingError, StaleAttemptError } from '../../../shared/domain/pools/pool-errors.js';
import { ITEM_BOUNDS, itemTimerId } from '../../../shared/domain/pools/pool-item.js';
import { storedBytes } from '../../../shared/domain/stored-size.js';
import type { TimerRequest } from '../../../shared/ports/timers.js';
import type { RecordingTimers } from '../support/recording-ports.js';
import { BYTES, largestAnswer, LONG_TYPES, payloadOf, TEMPLATE, TEMPLATE_STEPS, type AnswerOption, type AttemptStep, type Scenario, type Sized } from './item-size-scenarios.js';
import { longId } from './largest-items.js';
import { send, type Claimed } from './pool-test-support.js';
import type { SizeWatchedManager } from './size-watched-manager.js';

/** The contract's refusals: a 4xx with its own code. Anything else (a write DynamoDB refused) fails the run. */
const EXPECTED_REFUSALS = new Set([
  'stale_attempt',
  'attempt_terminating',
  'item_not_in_dlq',
  'escalation_answered',
  'escalation_not_found',
  'pool_finished',
  'command_not_started',
  'command_out_of_order',
  'too_many_commands_running',
  'invalid_request',
]);
const CARRY_RESULTS = new Set(['complete', 'terminated', 'checkpoint', 'command_finish']);

/** What a played scenario sent that the items must account for. */
export interface PlayedScenario {
  /** The manager the scenario ended on. */
  endedOn: SizeWatchedManager;
  itemIds: string[];
  /** Refused calls that carried a result, by `itemId#attempt`: each must be kept or counted. */
  refusedResults: Map<string, number>;
  /** The tag of the last result and of the last checkpoint each item accepted. */
  acceptedResult: Map<string, string>;
  acceptedCheckpoint: Map<string, string>;
}

/** Every wake-up armed now and due by `now`, once each, earliest first: what the timer queue would deliver. */
function armedWakeUps(timers: RecordingTimers, now: number, delivered: Set<TimerRequest>): TimerRequest[] {
  const latest = new Map<string, TimerRequest | undefined>();
  for (const call of timers.calls) latest.set(call.kind === 'arm' ? call.timer.jobId : call.jobId, call.kind === 'arm' ? call.timer : undefined);
  return [...latest.values()].filter((timer): timer is TimerRequest => timer !== undefined && timer.dueAt <= now && !delivered.has(timer)).sort((a, b) => a.dueAt - b.dueAt);
}

/**
 * Plays a scenario through the use cases, as agents, humans and the timer queue would: every call
 * either succeeds or is refused by the contract (a write DynamoDB refused is no such refusal, and
 * fails the run). `finaleOn`: the store the item's end is played on, taking over from `m`'s.
 */
export async function playScenario(
  on: SizeWatchedManager,
  s: Scenario,
  poolId: string,
  finaleOn: (from: SizeWatchedManager) => Promise<SizeWatchedManager> = async (from) => from,
): Promise<PlayedScenario> {
  let m = on;
  // One byte past the bound is made of plain characters: small numbers come in steps of 3 bytes.
  const sizedPayload = ({ size, shape }: Sized, tag: string) => payloadOf(BYTES[size], size === 'over' ? 'text' : shape, tag);
  // A pool whose items cycle through attempts: short limits, checkpoint windows, commands with limits of their own.
  const itemIds = Array.from({ length: s.items }, (_, i) => longId('item', i));
  await createPool(m.deps, {
    poolId,
    items: itemIds.map((itemId, i) => ({ itemId, input: s.bigInputs ? payloadOf(ITEM_BOUNDS.payloadBytes, i % 2 ? 'digits' : 'text', 'in') : { itemId } })),
    config: {
      agent_timeout_secs: 4,
      agent_template: TEMPLATE,
      checkpoint_interval_secs: 2,
      checkpoint_timeout_secs: 1,
      stall_threshold: 1,
      timeout_escalation: s.timeoutEscalation,
      timeout_config: {
        timeout_policy: 'hybrid',
        timeout_action: s.timeoutAction,
        cleanup_grace_period_secs: 1,
        command_timeouts: Object.fromEntries(LONG_TYPES.map((type) => [type, 2])),
      },
    },
  });
  if (s.busDown) m.bus.failNextPublishes(1e9);
  const t0 = m.clock.now();
  let seconds = 0;
  const moveTo = (to: number) => {
    seconds = Math.max(seconds, to);
    m.clock.set(t0 + Math.round(seconds * 1000));
  };
  const claims: Claimed[] = [];
  const played: PlayedScenario = { endedOn: m, itemIds: [...itemIds], refusedResults: new Map(), acceptedResult: new Map(), acceptedCheckpoint: new Map() };
  const delivered = new Set<TimerRequest>();
  let answers = 0;

  const refusedByContract = async <T>(act: () => Promise<T>): Promise<T | undefined> => {
    try {
      return await act();
    } catch (error) {
      if (!(error instanceof VigilError) || !EXPECTED_REFUSALS.has(error.code)) throw error;
      return undefined;
    }
  };
  const countRefused = (claimed: Claimed) => {
    const key = `${claimed.itemId}#${claimed.attempt}`;
    played.refusedResults.set(key, (played.refusedResults.get(key) ?? 0) + 1);
  };
  const lateResultsOf = async (claimed: Claimed): Promise<number> => {
    const entry = (await m.deps.pools.getItem(poolId, claimed.itemId))?.history.find((past) => past.attempt === claimed.attempt);
    return (entry?.lateResults?.length ?? 0) + (entry?.lateResultsDropped ?? 0);
  };
  /** An agent call as the API takes it: a payload past its bound is refused by the contract, with its reason, before any write. */
  const agentSends = (claimed: Claimed, call: AgentCall) =>
    refusedByContract(async () => {
      const carried = call.type === 'checkpoint' ? call.state : call.type === 'complete' ? call.result : call.type === 'terminated' ? call.partialResult : undefined;
      if (carried !== undefined) {
        const parsed = boundedJson().safeParse(carried);
        expect(parsed.success).toBe(storedBytes(carried) <= ITEM_BOUNDS.payloadBytes);
        if (!parsed.success) {
          expect(parsed.error.issues[0]?.message).toContain(`must be at most ${ITEM_BOUNDS.payloadBytes / 1024} KB`);
          return undefined;
        }
      }
      const lateBefore = call.type === 'terminated' ? await lateResultsOf(claimed) : 0;
      try {
        const reply = await send(m.deps, claimed, call, poolId);
        // A `terminated` after its attempt ended is answered and its report kept as a late result.
        if (call.type === 'terminated' && (await lateResultsOf(claimed)) > lateBefore) countRefused(claimed);
        const tag = (carried as { tag?: string } | undefined)?.tag;
        if (call.type === 'complete' && tag) played.acceptedResult.set(claimed.itemId, tag);
        if (call.type === 'checkpoint' && tag) played.acceptedCheckpoint.set(claimed.itemId, tag);
        return reply;
      } catch (error) {
        if ((error instanceof StaleAttemptError || error instanceof AttemptTerminatingError) && CARRY_RESULTS.has(call.type)) countRefused(claimed);
        throw error;
      }
    });
  const callOf = (type: AgentCall['type'], size: Sized, tag: string): AgentCall => {
    switch (type) {
      case 'heartbeat':
        return { type };
      case 'checkpoint':
        return { type, state: sizedPayload(size, tag), progress: 0.5 };
      case 'complete':
        return { type, outcome: 'failed', result: sizedPayload(size, tag) };
      case 'terminated':
        return { type, cleanup: 'failed', partialResult: sizedPayload(size, tag) };
      case 'command_start':
        return { type, index: TEMPLATE_STEPS, commandType: LONG_TYPES[0] ?? 'shell' };
      case 'command_finish':
        return { type, index: TEMPLATE_STEPS, outcome: 'failed' };
    }
  };
  /** Each due wake-up in turn, as the timer queue delivers them; a fire may arm others already due. */
  const fireDue = async () => {
    for (let round = 0; round < 5; round++) {
      const due = armedWakeUps(m.timers, m.clock.now(), delivered);
      if (due.length === 0) break;
      for (const timer of due) {
        delivered.add(timer);
        await refusedByContract(() => firePoolTimer(m.deps, timer));
      }
    }
  };
  const claim = async (agent: number, index: number): Promise<Claimed | undefined> => {
    // The longest ids the API takes: every attempt keeps its agent's and its claim's.
    const agentId = longId(`agent-${agent}`, 0);
    const claimed = await refusedByContract(() => claimPoolItem(m.deps, poolId, { agentId, kind: 'agent', claimId: longId(`claim-${index}`, 0) }));
    if (!claimed) return undefined;
    const taken = { itemId: claimed.itemId, attempt: claimed.attempt, token: claimed.token, agentId };
    claims.push(taken);
    return taken;
  };
  const pendingEscalation = async () => (await listEscalations(m.deps, poolId)).escalations.find((e) => e.status === 'pending');
  const answer = async (option: AnswerOption, subtaskCount: number, index: number) => {
    const pending = await pendingEscalation();
    if (!pending) return;
    const largest = largestAnswer(option, subtaskCount, index, answers++);
    await refusedByContract(() => answerEscalation(m.deps, pending.escalationId, largest));
    for (const task of largest.subtasks ?? []) played.itemIds.push(task.itemId);
  };
  const retryDlq = async () => {
    const [dead] = (await listDeadLetters(m.deps, poolId, { limit: 1 })).items;
    if (dead) await refusedByContract(() => retryDeadLetter(m.deps, poolId, dead.itemId, undefined));
  };
  /**
   * An agent polls for work; with none, the humans act (an input too large for another clarification
   * gets a longer limit), an operator redrives the DLQ, or the agent polls again after the next wake-up.
   */
  const claimOrWait = async (agent: number, human: AnswerOption, index: number): Promise<Claimed | undefined> => {
    for (let poll = 0; poll < 8; poll++) {
      const claimed = await claim(agent, index);
      if (claimed) return claimed;
      await answer(human, 1, index);
      await answer('increase_timeout', 1, index);
      await retryDlq();
      const wakeUp = armedWakeUps(m.timers, Number.POSITIVE_INFINITY, delivered)[0];
      if (wakeUp) moveTo((wakeUp.dueAt - t0) / 1000);
      await fireDue();
    }
    return undefined;
  };
  const runAttempt = async (next: AttemptStep, index: number): Promise<Claimed | undefined> => {
    const taken = await claimOrWait(next.agent, next.human, index);
    if (!taken) return undefined;
    const tag = `${index}`;
    for (const [k, type] of next.commands.entries()) await agentSends(taken, { type: 'command_start', index: TEMPLATE_STEPS + k, commandType: LONG_TYPES[type] ?? 'shell' });
    if (next.collect) await refusedByContract(() => startCollection(m.deps, poolId));
    if (next.checkpoint) await agentSends(taken, callOf('checkpoint', next.checkpoint, `${tag}c`));
    if (next.later) await agentSends(taken, callOf('checkpoint', next.later, `${tag}k`));
    // The attempt is over once its end is accepted (a report past its bound is refused by the contract, and the agent runs on).
    let over = false;
    if (next.ending === 'complete') over = (await agentSends(taken, callOf('complete', next.report, `${tag}r`))) !== undefined;
    if (next.ending === 'give_back') over = (await agentSends(taken, callOf('terminated', next.report, `${tag}p`))) !== undefined;
    if (next.ending === 'run_out') {
      // The agent beats at each of its item's wake-ups (checkpoint requests, deadlines) until told to stop; it answers
      // two checkpoint requests at most, so an attempt with a long limit stalls instead of beating on for long.
      let checkpoints = 0;
      for (let beat = 0; beat < 12 && !over; beat++) {
        const wakeUp = m.timers.current(itemTimerId(poolId, taken.itemId));
        moveTo(wakeUp ? (wakeUp.dueAt - t0) / 1000 : seconds + 1);
        const reply = (await agentSends(taken, { type: 'heartbeat' })) as HeartbeatReply | undefined;
        over = reply?.action === 'terminate';
        if (over) await agentSends(taken, callOf('terminated', next.report, `${tag}p`));
        else if (reply?.action === 'checkpoint' && next.checkpoint && checkpoints++ < 2) await agentSends(taken, callOf('checkpoint', next.checkpoint, `${tag}c${beat}`));
      }
    }
    // Late calls come from an agent whose attempt is over; an abandoned attempt's agent is gone for good.
    if (over) for (const [k, late] of next.late.entries()) await agentSends(taken, callOf(late.call, late.sized, `${tag}l${k}`));
    return taken;
  };

  // The item's life…
  for (const [index, next] of s.life.entries()) {
    if (next.kind === 'attempt') await runAttempt(next, index);
    else if (next.kind === 'claim') await claim(next.agent, index);
    else if (next.kind === 'call') {
      const claimed = claims[claims.length - 1 - (next.claimsBack % Math.max(claims.length, 1))];
      if (claimed) await agentSends(claimed, callOf(next.call, next.sized, `${index}`));
    } else if (next.kind === 'advance') {
      moveTo(seconds + next.seconds);
      await fireDue();
    } else if (next.kind === 'retry_dlq') await retryDlq();
    else if (next.kind === 'answer') await answer(next.option, next.subtasks, index);
    else m.bus.failNextPublishes(next.down ? 1e9 : 0);
  }
  // …and its end: a last attempt with a collection's answer, a later checkpoint and a report at their largest, then
  // attempts until a human is asked (or the item completes with its largest result), and the largest answer.
  const [collected, later, report] = s.payloads;
  const last = (ending: AttemptStep['ending'], collect: boolean): AttemptStep => ({
    kind: 'attempt',
    agent: 0,
    human: 'increase_timeout',
    commands: [],
    collect,
    checkpoint: collect ? collected : null,
    later: collect ? later : null,
    ending,
    report,
    late: [],
  });
  const base = s.life.length;
  m = await finaleOn(m);
  played.endedOn = m;
  await runAttempt(last('run_out', true), base);
  for (let more = 1; more < 12 && !(await pendingEscalation()); more++) {
    if (s.ending === 'complete' && (await runAttempt(last('complete', false), base + more))) break;
    if (s.ending !== 'complete') {
      await retryDlq();
      await runAttempt(last('run_out', false), base + more);
    }
  }
  if (s.ending !== 'complete') await answer(s.ending, s.subtasks, base + 12);
  return played;
}
