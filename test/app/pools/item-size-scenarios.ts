import fc from 'fast-check';
import { expect } from 'vitest';
import { answerBody } from '../../../shared/contract/pool-requests.js';
import type { EscalationAnswer } from '../../../shared/domain/pools/item-answers.js';
import { ITEM_BOUNDS } from '../../../shared/domain/pools/pool-item.js';
import { storedBytes } from '../../../shared/domain/stored-size.js';
import { longId } from './largest-items.js';

/**
 * Payload sizes biased toward what the bounds cap: `late` is kept whole as a late result (just under
 * `lateResultBytes` with its call's fields), `cap` is the most a field takes, `over` is one byte
 * more, which the contract refuses before any write.
 */
export type Size = 'small' | 'late' | 'cap' | 'over';
/** Plain characters (JSON's size is DynamoDB's), or small numbers (3 bytes each in DynamoDB against 2 in JSON). */
export type Shape = 'text' | 'digits';
export interface Sized {
  size: Size;
  shape: Shape;
}
export const BYTES: Record<Size, number> = { small: 200, late: ITEM_BOUNDS.lateResultBytes - 40, cap: ITEM_BOUNDS.payloadBytes, over: ITEM_BOUNDS.payloadBytes + 1 };

/**
 * The largest payload of at most `bytes` as stored (`storedBytes`; exactly `bytes` in plain
 * characters), tagged so the test can tell which call's it is.
 */
export function payloadOf(bytes: number, shape: Shape, tag: string): { tag: string; blob?: string; n?: number[] } {
  if (shape === 'digits') return { tag, n: Array.from({ length: Math.floor((bytes - storedBytes({ tag, n: [] })) / 3) }, () => 1) };
  return { tag, blob: 'x'.repeat(bytes - storedBytes({ tag, blob: '' })) };
}

/** Command types as long as the contract takes, more than `ITEM_BOUNDS.commandTypesCounted`, each with a short limit of its own. */
export const LONG_TYPES = Array.from({ length: ITEM_BOUNDS.commandTypesCounted + 4 }, (_, i) => `t${i}`.padEnd(64, 'y'));
/** The template's steps run first (indexes 0–3); commands past it are the agent's own, with their own types. */
export const TEMPLATE_STEPS = 4;
/** Near the largest config the API takes (64 KB), sent with every claim and stored on the pool. */
export const TEMPLATE = Array.from({ length: TEMPLATE_STEPS }, (_, i) => ({ [i % 2 ? 'shell' : 'claude']: `step ${i} `.padEnd(14_000, 'y') }));

export type LateCall = 'complete' | 'terminated' | 'checkpoint' | 'command_finish';
export type Ending = 'run_out' | 'give_back' | 'complete' | 'abandon';
export type AnswerOption = 'clarify' | 'split' | 'increase_timeout' | 'skip';
/**
 * One attempt from claim to end: the agent starts commands, answers a collection, checkpoints, then
 * runs out of time (beats until told to terminate, then reports), gives the item back, completes it,
 * or goes silent for good; an agent whose attempt is over sends late what a crashed or slow one
 * sends. With no item to claim, a human first gives an escalated one back (`human`), or an operator
 * redrives a dead-lettered one, or the agent waits for the next wake-up.
 */
export interface AttemptStep {
  kind: 'attempt';
  agent: number;
  human: 'clarify' | 'increase_timeout';
  commands: number[];
  collect: boolean;
  checkpoint: Sized | null;
  /** A later checkpoint of the same attempt: a collection's answer moves aside, where the collection still reads it. */
  later: Sized | null;
  ending: Ending;
  report: Sized;
  late: Array<{ call: LateCall; sized: Sized }>;
}
export type Step =
  | AttemptStep
  | { kind: 'claim'; agent: number }
  | { kind: 'call'; claimsBack: number; call: 'heartbeat' | 'checkpoint' | 'terminated' | 'command_start' | 'command_finish'; sized: Sized }
  | { kind: 'advance'; seconds: number }
  | { kind: 'retry_dlq' }
  | { kind: 'answer'; option: AnswerOption; subtasks: number }
  | { kind: 'bus'; down: boolean };

export interface Scenario {
  items: number;
  bigInputs: boolean;
  busDown: boolean;
  timeoutEscalation: number;
  timeoutAction: 'retry' | 'dlq';
  /** Where each claim starts reading the available items: a replay claims the same ones. */
  claimSeed: number;
  /** Attempts pile up (the history, its late results, the stats fill), interleaved with everything else. */
  life: Step[];
  /**
   * How the item's life ends: the largest answer a human can give its last escalation (a split whose
   * subtasks' inputs wait on the item until created), a skip, or a completion with the largest result.
   */
  ending: 'split' | 'complete' | 'skip';
  subtasks: number;
  /** The last attempt's collection answer, its later checkpoint and its report: each as large as the API takes. */
  payloads: [Sized, Sized, Sized];
}

/** Mostly text: a list of numbers costs the store (and every size check) a step per number, and one such field per item is enough. */
const shape = fc.oneof({ weight: 3, arbitrary: fc.constant<Shape>('text') }, fc.constant<Shape>('digits'));
const sized: fc.Arbitrary<Sized> = fc.record({
  size: fc.oneof({ weight: 4, arbitrary: fc.constant<Size>('cap') }, { weight: 3, arbitrary: fc.constant<Size>('late') }, fc.constant<Size>('small'), fc.constant<Size>('over')),
  shape,
});
const capped: fc.Arbitrary<Sized> = fc.record({ size: fc.constant<Size>('cap'), shape });
/** What an agent sends late: mostly as large as a late result is kept whole. */
const lateSized: fc.Arbitrary<Sized> = fc.record({
  size: fc.oneof({ weight: 4, arbitrary: fc.constant<Size>('late') }, fc.constant<Size>('cap'), fc.constant<Size>('small')),
  shape,
});
const subtasks = fc.oneof(fc.constantFrom(4, 100), fc.integer({ min: 1, max: 100 }));

/** Attempts that end without ending the item (it completes in its finale only), so it lives through many. */
const attempt: fc.Arbitrary<Step> = fc.record({
  kind: fc.constant('attempt' as const),
  agent: fc.nat({ max: 3 }),
  human: fc.constantFrom('clarify' as const, 'increase_timeout' as const),
  commands: fc.array(fc.nat({ max: LONG_TYPES.length - 1 }), { maxLength: 2 }),
  collect: fc.boolean(),
  checkpoint: fc.option(sized, { freq: 3, nil: null }),
  later: fc.option(sized, { freq: 1, nil: null }),
  ending: fc.oneof({ weight: 8, arbitrary: fc.constant<Ending>('run_out') }, { weight: 2, arbitrary: fc.constant<Ending>('give_back') }, fc.constant<Ending>('abandon')),
  report: sized,
  // More than the three late results an attempt keeps: the rest are counted.
  late: fc.array(fc.record({ call: fc.constantFrom<LateCall>('complete', 'terminated', 'terminated', 'checkpoint', 'command_finish'), sized: lateSized }), { minLength: 2, maxLength: 5 }),
});
const between: fc.Arbitrary<Step> = fc.oneof(
  { weight: 2, arbitrary: fc.record({ kind: fc.constant('answer' as const), option: fc.constantFrom<AnswerOption>('clarify', 'increase_timeout'), subtasks }) },
  fc.record({ kind: fc.constant('retry_dlq' as const) }),
  fc.record({ kind: fc.constant('claim' as const), agent: fc.nat({ max: 3 }) }),
  // Mostly the latest attempt's calls, sometimes an older (stale) one's.
  fc.record({ kind: fc.constant('call' as const), claimsBack: fc.nat({ max: 5 }), call: fc.constantFrom('heartbeat' as const, 'checkpoint' as const, 'terminated' as const, 'command_start' as const, 'command_finish' as const), sized }),
  fc.record({ kind: fc.constant('advance' as const), seconds: fc.double({ min: 0.3, max: 6, noNaN: true }) }),
  fc.record({ kind: fc.constant('bus' as const), down: fc.boolean() }),
);

const common = {
  busDown: fc.boolean(),
  // Low: escalations, and answers that give the item back for more attempts, from early on.
  timeoutEscalation: fc.constantFrom(2, 4, 8),
  timeoutAction: fc.constantFrom('retry' as const, 'retry' as const, 'retry' as const, 'dlq' as const),
  claimSeed: fc.integer(),
  // Every attempt comes with at most one other step before it: more attempts than the history keeps, on every run.
  life: fc
    .array(fc.tuple(fc.option(between, { freq: 2, nil: null }), attempt), { minLength: ITEM_BOUNDS.history + 2, maxLength: ITEM_BOUNDS.history + 8 })
    .map((pairs) => pairs.flatMap(([before, next]) => (before ? [before, next] : [next]))),
  payloads: fc.tuple(capped, capped, capped),
};

/** One item, its input, its last payloads and its split at their largest: a run that ends within a few KB of 400 KB. */
export const nearLimitScenario: fc.Arbitrary<Scenario> = fc.record({
  ...common,
  items: fc.constant(1),
  bigInputs: fc.constant(true),
  ending: fc.constant('split' as const),
  subtasks: fc.constant(100),
});

/**
 * The same run with the bus up throughout (no outage for the whole run, none in the item's life): each
 * write's events are published and leave its outbox, which never waits on the item for room.
 */
export const withBusUp = (s: Scenario): Scenario => ({ ...s, busDown: false, life: s.life.filter((step) => step.kind !== 'bus') });

/** Anything else: several items, small inputs, fewer subtasks, a skip or a completion to end. */
export const broadScenario: fc.Arbitrary<Scenario> = fc.record({
  ...common,
  items: fc.integer({ min: 1, max: 3 }),
  bigInputs: fc.boolean(),
  ending: fc.constantFrom('split' as const, 'complete' as const, 'skip' as const),
  subtasks,
});

/** The largest answer of each kind the API accepts (checked against the request schema itself). */
export function largestAnswer(option: AnswerOption, subtaskCount: number, seq: number, answered: number): EscalationAnswer {
  const perInput = Math.min(ITEM_BOUNDS.payloadBytes, Math.floor(ITEM_BOUNDS.subtaskInputsBytes / subtaskCount));
  const answer: EscalationAnswer =
    option === 'clarify'
      ? { option, clarification: 'c'.repeat(4_096) }
      : option === 'split'
        ? { option, subtasks: Array.from({ length: subtaskCount }, (_, i) => ({ itemId: longId(`s${seq}`, i), input: payloadOf(perInput, i % 4 === 1 ? 'digits' : 'text', `s${i}`) })) }
        : option === 'increase_timeout'
          ? { option, timeoutSeconds: 5 + answered }
          : { option };
  expect(answerBody.safeParse(answer).success).toBe(true);
  return answer;
}
