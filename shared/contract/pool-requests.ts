import * as z from '../validation/zod.js';
import { ITEM_BOUNDS } from '../domain/pools/pool-item.js';
import { storedBytes } from '../domain/stored-size.js';
import { ESCALATION_OPTIONS } from '../domain/pools/pool-item.js';
import { MAX_STALL_THRESHOLD, TIMEOUT_ACTIONS, TIMEOUT_POLICIES } from '../domain/pools/pool-config.js';
import { keyedRecord } from './keyed-record.js';
import { pageLimit } from './page-limit.js';
import { durationSeconds, fraction, id, sealedCursor } from './manager-requests.js';

const MAX_ITEMS = 10_000;
const MAX_COMMANDS = 100;
/** The config is stored on the pool's item and sent with every claim: it must stay far below 400 KB. */
const MAX_CONFIG_BYTES = 64 * 1024;

// At least a millisecond, at most a year (DynamoDB cannot store 5e-324 s; Schemathesis found the 500).
const seconds = durationSeconds;
const count = (max: number) => z.int().check(z.gte(1, 'must be at least 1'), z.lte(max, `must be at most ${max}`));


/** DynamoDB nests documents at most 32 levels; the item and its history wrap a payload in a few more. */
const MAX_JSON_DEPTH = 24;

const outsideDynamoRange = (n: number): boolean => n !== 0 && (Math.abs(n) < 1e-130 || Math.abs(n) >= 1e126);

function someNumber(value: unknown, test: (n: number) => boolean): boolean {
  if (typeof value === 'number') return test(value);
  if (Array.isArray(value)) return value.some((v) => someNumber(v, test));
  if (value !== null && typeof value === 'object') return Object.values(value).some((v) => someNumber(v, test));
  return false;
}

/** Whether `value` nests more than `levels` arrays or objects deep; it never descends past `levels`, so any depth is safe. */
function nestsDeeperThan(value: unknown, levels: number): boolean {
  if (value === null || typeof value !== 'object') return false;
  if (levels === 0) return true;
  const children = Array.isArray(value) ? value : Object.values(value);
  return children.some((child) => nestsDeeperThan(child, levels - 1));
}

/**
 * Keys the JavaScript SDK's DynamoDB marshaller cannot carry: it reads an own `constructor` as the
 * object's class (a 500, or a value stored as something else), and `__proto__` is lost on the way back.
 */
const UNSTORABLE_KEYS: ReadonlySet<string> = new Set(['constructor', '__proto__']);

function hasUnstorableKey(value: unknown): boolean {
  if (Array.isArray(value)) return value.some(hasUnstorableKey);
  if (value === null || typeof value !== 'object') return false;
  return Object.keys(value).some((key) => UNSTORABLE_KEYS.has(key)) || Object.values(value).some(hasUnstorableKey);
}

/**
 * Values JSON has no form for: a YAML document can still make them (a `%YAML 1.1` directive turns
 * `2001-12-14` into a date, `!!set` into a Set, `!!binary` into bytes).
 */
function hasNonJsonValue(value: unknown): boolean {
  if (value === null || ['string', 'number', 'boolean'].includes(typeof value)) return false;
  if (Array.isArray(value)) return value.some(hasNonJsonValue);
  if (typeof value !== 'object') return true;
  const prototype = Object.getPrototypeOf(value) as unknown;
  if (prototype !== Object.prototype && prototype !== null) return true;
  return Object.values(value).some(hasNonJsonValue);
}

/** DynamoDB's marshaller refuses such numbers (Schemathesis found the 500); JSON parsing has already rounded them. */
const hasUnsafeInteger = (value: unknown): boolean => someNumber(value, (n) => Number.isInteger(n) && !Number.isSafeInteger(n));

/** Any JSON up to the item bound (an item stays far below DynamoDB's 400 KB whatever agents send). */
export const boundedJson = () =>
  z.unknown().check(
    // First, and the others skipped when it fails: they walk the whole value and would run out of stack on one nested tens of thousands of levels deep.
    z.refine((value) => !nestsDeeperThan(value, MAX_JSON_DEPTH), {
      message: `nests deeper than ${MAX_JSON_DEPTH} levels, which DynamoDB cannot store inside an item; flatten it or send it as a string`,
      abort: true,
    }),
    z.refine((value) => storedBytes(value) <= ITEM_BOUNDS.payloadBytes, {
      message: `must be at most ${ITEM_BOUNDS.payloadBytes / 1024} KB, as JSON and as DynamoDB stores it (a list of small numbers takes half as much again there); keep large data elsewhere and send a reference`,
    }),
    z.refine((value) => !hasUnsafeInteger(value), {
      message: 'holds an integer beyond ±2^53, which JSON cannot carry exactly; send it as a string',
    }),
    z.refine((value) => !someNumber(value, (n) => !Number.isFinite(n)), {
      message: 'holds NaN or an infinity (YAML .nan, .inf), which JSON cannot carry; send it as a string',
    }),
    z.refine((value) => !someNumber(value, outsideDynamoRange), {
      message: 'holds a number DynamoDB cannot store (non-zero magnitudes must be between 1e-130 and 1e125); send it as a string',
    }),
    z.refine((value) => !hasNonJsonValue(value), {
      message: 'holds a value JSON cannot carry (a date, a set, bytes or a map, as YAML 1.1 makes them); quote it, or write it as text, a list or a map',
    }),
    z.refine((value) => !hasUnstorableKey(value), {
      message: 'holds a key named "constructor" or "__proto__", which the DynamoDB SDK for JavaScript cannot store as sent; rename the key',
    }),
  );

/** Seed 003 command types (`claude`, `shell`, …) and `type_index` keys (`claude_0`). */
const commandType = z.string().check(
  z.regex(/^[A-Za-z][A-Za-z0-9_-]{0,63}$/, 'must be a command type like claude, shell or claude_0'),
  // Command types are keys of stored maps (limits, timeout counts): a member of every JavaScript object cannot be one.
  z.refine((type) => !(type in Object.prototype), { message: 'is a name every JavaScript object already has (like toString or constructor); choose another command type' }),
);

const COMMAND_TYPE_KEY = 'a command type; name one like claude, shell or claude_0';

const templateStep = keyedRecord(commandType, z.string().check(z.maxLength(16_384)), COMMAND_TYPE_KEY).check(
  z.refine((step) => Object.keys(step).length === 1, { message: 'each agent_template step names exactly one command, like { "shell": "validate ${item.id}" }' }),
);

const timeoutConfig = z.strictObject({
  timeout_policy: z.optional(z.enum(TIMEOUT_POLICIES)),
  cleanup_grace_period_secs: z.optional(
    z.number().check(
      z.refine((value) => value === 0 || (value >= 0.001 && value <= 3_600), { message: 'must be 0, or from 0.001 (one millisecond) to 3600' }),
    ),
  ),
  timeout_action: z.optional(z.enum(TIMEOUT_ACTIONS)),
  enable_monitoring: z.optional(z.boolean()),
  command_timeouts: z.optional(keyedRecord(commandType, seconds(), COMMAND_TYPE_KEY)),
});

/** Seed 003's other `map:` keys: accepted and ignored (Vigil is given the items themselves). */
export const IGNORED_MAP_KEYS = ['input', 'json_path', 'filter', 'sort_by', 'max_parallel', 'max_items', 'offset', 'distinct'] as const;

export const poolConfigSchema = z
  .strictObject({
    agent_timeout_secs: z.optional(seconds()),
    delegation_timeout_secs: z.optional(seconds()),
    agent_template: z.optional(z.array(templateStep).check(z.maxLength(MAX_COMMANDS, `at most ${MAX_COMMANDS} commands`))),
    timeout_config: z.optional(timeoutConfig),
    checkpoint_interval_secs: z.optional(seconds()),
    checkpoint_timeout_secs: z.optional(seconds()),
    stall_threshold: z.optional(count(MAX_STALL_THRESHOLD)),
    timeout_escalation: z.optional(count(1_000)),
    ...Object.fromEntries(IGNORED_MAP_KEYS.map((key) => [key, z.optional(z.unknown())])),
  })
  .check(
    z.refine((config) => (config.checkpoint_timeout_secs ?? 30) < (config.checkpoint_interval_secs ?? 300), {
      message: 'checkpoint_timeout_secs must be shorter than checkpoint_interval_secs, or requests would overlap',
      path: ['checkpoint_timeout_secs'],
    }),
    z.refine((config) => storedBytes(config) <= MAX_CONFIG_BYTES, {
      message: `must be at most ${MAX_CONFIG_BYTES / 1024} KB, as JSON and as DynamoDB stores it (agent_template and command_timeouts together); keep long prompts in files the commands read`,
    }),
  );

const itemsSchema = z
  .array(z.strictObject({ itemId: id, input: z.optional(boundedJson()) }))
  .check(
    z.minLength(1, 'a pool needs at least one item'),
    z.maxLength(MAX_ITEMS, `a pool may have at most ${MAX_ITEMS} items`),
    z.refine((items) => new Set(items.map((item) => item.itemId)).size === items.length, { message: 'itemId values must be unique within a pool' }),
  );

export const createPoolBody = z.strictObject({ poolId: z.optional(id), items: itemsSchema, config: z.optional(poolConfigSchema) });
export type CreatePoolBody = z.infer<typeof createPoolBody>;

/** Spec 113's workflow file: the config is its `map:` block; `name`, `mode`, `reduce`, `setup` are not Vigil's. */
export const createPoolYaml = z.strictObject({
  poolId: z.optional(id),
  items: itemsSchema,
  map: z.optional(poolConfigSchema),
  name: z.optional(z.unknown()),
  mode: z.optional(z.unknown()),
  reduce: z.optional(z.unknown()),
  setup: z.optional(z.unknown()),
});

export const poolPath = z.object({ poolId: id });
export const itemPath = z.object({ poolId: id, itemId: id });
export const commandPath = z.object({
  poolId: id,
  itemId: id,
  index: z.string().check(z.regex(/^\d{1,3}$/, 'must be the command index, 0–999')),
});
/** A collection's id is any id: Vigil's own are UUIDs, a client may choose one when it starts the collection. */
export const collectionPath = z.object({ poolId: id, collectionId: id });
export const escalationPath = z.object({ escalationId: z.string().check(z.minLength(1), z.maxLength(300)) });

/** `claimId`: the caller's idempotency key; a repeat with the same id gets the same attempt (docs/agent-fleets.md). */
export const claimBody = z.strictObject({ agentId: id, kind: z.optional(z.enum(['agent', 'expert'])), claimId: z.optional(id) });

const attemptFields = { agentId: id, attempt: z.int().check(z.gte(1, 'must be the attempt number the claim returned')) };
export const heartbeatBody = z.strictObject(attemptFields);
export const commandStartBody = z.strictObject({ ...attemptFields, type: commandType });
export const commandFinishBody = z.strictObject({ ...attemptFields, outcome: z.enum(['succeeded', 'failed']) });
export const checkpointBody = z.strictObject({
  ...attemptFields,
  state: boundedJson(),
  progress: z.optional(fraction()),
});
export const completeItemBody = z.strictObject({ ...attemptFields, outcome: z.enum(['succeeded', 'failed']), result: z.optional(boundedJson()) });
export const terminatedBody = z.strictObject({
  ...attemptFields,
  cleanup: z.enum(['completed', 'failed']),
  partialResult: z.optional(boundedJson()),
});

/** `collectionId`: the caller's idempotency key; a repeat with the same id answers the same collection (docs/agent-fleets.md). */
export const startCollectionBody = z.strictObject({
  collectionId: z.optional(
    id.check(
      z.describe(
        'An id of your choosing for the collection, unique within the pool: a POST sent again with it (its answer lost to a timeout or a dropped connection) answers 202 with the same collectionId and asks nobody again, whether that collection is still collecting or done. Without it every POST starts a new collection under an id Vigil chooses.',
      ),
    ),
  ),
});
export const cancelPoolBody = z.strictObject({ reason: z.optional(z.string().check(z.maxLength(1024))) });
export const dlqRetryBody = z.strictObject({ agentTimeoutSecs: z.optional(seconds()) });
/** A page's cursor is the `nextCursor` of the previous answer: the last id it held. */
/** DLQ entries per page at most; a page of items at their largest is cut shorter by the answer budget. */
export const DLQ_PAGE_SIZE = 25;
export const dlqQuery = z.strictObject({ limit: z.optional(pageLimit(DLQ_PAGE_SIZE)), cursor: z.optional(id) });
/** A status page's cursor is the `nextCursor` of the previous answer: the position of the next agent asked. */
export const collectionQuery = z.strictObject({ cursor: z.optional(z.string().check(z.regex(/^\d{1,6}$/, 'must be the nextCursor of the previous answer'))) });
export const escalationsQuery = z.strictObject({
  poolId: z.optional(id),
  cursor: z.optional(sealedCursor),
});

export const answerBody = z
  .strictObject({
    option: z.enum(ESCALATION_OPTIONS),
    timeoutSeconds: z.optional(seconds()),
    clarification: z.optional(z.string().check(z.minLength(1), z.maxLength(4_096))),
    subtasks: z.optional(
      z
        .array(z.strictObject({ itemId: id, input: z.optional(boundedJson()) }))
        .check(
          z.minLength(1),
          z.maxLength(100, 'at most 100 subtasks'),
          z.refine((tasks) => new Set(tasks.map((task) => task.itemId)).size === tasks.length, { message: 'each subtask needs its own itemId; two have the same one' }),
          z.refine((tasks) => tasks.reduce((sum, task) => sum + storedBytes(task.input), 0) <= ITEM_BOUNDS.subtaskInputsBytes, {
            message: `the subtasks' inputs must total at most ${ITEM_BOUNDS.subtaskInputsBytes / 1024} KB, as JSON and as DynamoDB stores them; keep large data elsewhere and send references`,
          }),
        ),
    ),
  })
  .check(
    z.refine((answer) => answer.option !== 'increase_timeout' || answer.timeoutSeconds !== undefined, {
      message: 'increase_timeout needs timeoutSeconds, the item’s new limit',
      path: ['timeoutSeconds'],
    }),
    z.refine((answer) => answer.option !== 'clarify' || answer.clarification !== undefined, {
      message: 'clarify needs clarification, the text to add to the item’s input',
      path: ['clarification'],
    }),
    z.refine((answer) => answer.option !== 'split' || answer.subtasks !== undefined, {
      message: 'split needs subtasks: [{ itemId, input }]',
      path: ['subtasks'],
    }),
  );
export type AnswerBody = z.infer<typeof answerBody>;
