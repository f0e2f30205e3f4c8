import { copyItem } from './copy-item.js';
import {
  ConditionalCheckFailedException,
  CreateTableCommand,
  DescribeTableCommand,
  ResourceInUseException,
  ResourceNotFoundException,
  type DynamoDBClient,
} from '@aws-sdk/client-dynamodb';
import {
  BatchGetCommand,
  BatchWriteCommand,
  DeleteCommand,
  GetCommand,
  PutCommand,
  QueryCommand,
  UpdateCommand,
  type DynamoDBDocumentClient,
} from '@aws-sdk/lib-dynamodb';
import { ANSWER_DIRECTLY, type AnswersDirectly } from '../../adapters/aws/document-calls.js';
import { applyUpdate, evaluate, type Item } from './expression-eval.js';
import { parseCondition, parseUpdate, ValidationException, type Condition } from './expression-parser.js';
import { itemSize, MAX_ITEM_BYTES } from '../../domain/stored-size.js';
import { Table, type IndexDefinition, type KeySchema } from './table.js';
import type { DynamoUsage } from './dynamo-usage.js';
import type { SimStore, StoreHooks } from './sim-store.js';
import { newDynamoUsage } from './dynamo-usage.js';

/** A query page stops at 1 MB of items read, as DynamoDB's does. */
const QUERY_PAGE_BYTES = 1024 * 1024;
const MAX_BATCH_GET_KEYS = 100;
const MAX_BATCH_WRITE_ITEMS = 25;

export interface MemoryDynamoOptions extends StoreHooks {
  /** The virtual clock: index reads see writes whose propagation time has come. */
  now?: () => number;
  /** How long a write takes to reach the secondary indexes (GSIs are eventually consistent). */
  indexLagMs?: () => number;
}

type Input = Record<string, unknown> & { TableName?: string };
type CommandClass = new (input: never) => unknown;

const units = (bytes: number, unit: number) => Math.max(1, Math.ceil(bytes / unit));

function conditionFailed(): ConditionalCheckFailedException {
  return new ConditionalCheckFailedException({ message: 'The conditional request failed', $metadata: {} });
}

/**
 * An in-memory DynamoDB behind the `send()` of a `DynamoDBDocumentClient` (and of a `DynamoDBClient`
 * for CreateTable/DescribeTable), so the real adapters run on it unchanged. It enforces what the
 * adapters rely on DynamoDB to enforce: conditional writes, the 400 KB item limit, 1 MB query pages,
 * batch sizes, no strongly consistent reads on a GSI, and eventually consistent indexes.
 */
export class MemoryDynamo implements SimStore, AnswersDirectly {
  private readonly tables = new Map<string, Table>();
  private counted: DynamoUsage = newDynamoUsage();
  private uncounted = false;
  /** Largest item ever written, in bytes. */
  largestItemBytes = 0;
  /** Writes so far: a reader that saw this number unchanged has nothing new to read. */
  writes = 0;
  private written = new Set<string>();

  constructor(private readonly options: MemoryDynamoOptions = {}) {}

  /** The adapters take a document client; this object answers its `send()`. */
  get doc(): DynamoDBDocumentClient {
    return this as unknown as DynamoDBDocumentClient;
  }

  get client(): DynamoDBClient {
    return this as unknown as DynamoDBClient;
  }

  /** What the adapters asked of this store (reads by `observer` are not counted). */
  get usage(): DynamoUsage {
    return this.uncounted ? newDynamoUsage() : this.counted;
  }

  /**
   * A document client for the simulator's own invariant checks: same data, but its reads are not
   * counted as AWS usage and never count as a handler's write.
   */
  get observer(): DynamoDBDocumentClient {
    const uncounted = async (call: () => Promise<unknown>) => {
      this.uncounted = true;
      try {
        return await call();
      } finally {
        this.uncounted = false;
      }
    };
    const send = (command: { input: unknown }) => uncounted(() => this.send(command));
    const direct = (command: CommandClass, input: object) => uncounted(() => this.answer(command, input as Input));
    return { send, [ANSWER_DIRECTLY]: direct } as unknown as DynamoDBDocumentClient;
  }

  /** Each command class the store answers, by constructor: one lookup per call instead of a chain of `instanceof`. */
  private readonly operations = new Map<unknown, { kind: string; writes?: true; run: (input: Input) => unknown }>([
    [GetCommand, { kind: 'Get', run: (input) => this.get(input) }],
    [PutCommand, { kind: 'Put', writes: true, run: (input) => this.put(input) }],
    [UpdateCommand, { kind: 'Update', writes: true, run: (input) => this.update(input) }],
    [DeleteCommand, { kind: 'Delete', writes: true, run: (input) => this.delete(input) }],
    [QueryCommand, { kind: 'Query', run: (input) => this.query(input) }],
    [BatchGetCommand, { kind: 'BatchGet', run: (input) => this.batchGet(input) }],
    [BatchWriteCommand, { kind: 'BatchWrite', writes: true, run: (input) => this.batchWrite(input) }],
    [CreateTableCommand, { kind: 'CreateTable', run: (input) => this.createTable(input) }],
    [DescribeTableCommand, { kind: 'DescribeTable', run: (input) => ({ Table: { TableName: this.table(input).name, TableStatus: 'ACTIVE' } }) }],
  ]);

  send(command: { input: unknown }): Promise<unknown> {
    return this.answer(command.constructor, command.input as Input);
  }

  /**
   * The adapters' calls (`document-calls.ts`) come here with the command's class and input, no
   * command built, unless `send` was replaced (a test watching the calls): then the command is built
   * and sent to the replacement.
   */
  [ANSWER_DIRECTLY](command: CommandClass, input: object): Promise<unknown> {
    if (this.send !== OWN_SEND) return this.send(new command(input as never) as { input: unknown });
    return this.answer(command, input as Input);
  }

  private async answer(commandClass: unknown, input: Input): Promise<unknown> {
    const operation = this.operations.get(commandClass);
    const afterWrite = this.uncounted ? undefined : this.options.beforeCall?.(operation?.writes ?? false);
    const kind = operation?.kind ?? String((commandClass as { name?: unknown }).name).replace(/Command$/, '');
    this.usage.calls[kind] = (this.usage.calls[kind] ?? 0) + 1;
    if (!operation) throw new ValidationException(`The in-memory DynamoDB does not implement ${kind}; add it in shared/simulation/dynamo/memory-dynamo.ts`);
    if (!afterWrite) return operation.run(input);
    let tookEffect = false;
    try {
      const answer = operation.run(input);
      tookEffect = true;
      return answer;
    } finally {
      afterWrite(tookEffect);
    }
  }

  async close(): Promise<void> {}

  /** Partition keys written since the last call (the invariant checks re-read only those). */
  drainWrittenPartitions(): Set<string> {
    const drained = this.written;
    this.written = new Set();
    return drained;
  }

  storedItem(tableName: string, key: Record<string, unknown>): object | undefined {
    return this.table({ TableName: tableName }).get(key);
  }

  private now(): number {
    return this.options.now?.() ?? 0;
  }

  private table(input: Input): Table {
    const table = input.TableName ? this.tables.get(input.TableName) : undefined;
    if (!table) throw new ResourceNotFoundException({ message: `Requested resource not found: Table: ${input.TableName} not found`, $metadata: {} });
    return table;
  }

  private createTable(input: Input) {
    const name = String(input.TableName);
    if (this.tables.has(name)) throw new ResourceInUseException({ message: `Table already exists: ${name}`, $metadata: {} });
    type KeyElement = { AttributeName: string; KeyType: string };
    const schemaOf = (elements: KeyElement[]): KeySchema => {
      const hash = elements.find((e) => e.KeyType === 'HASH')?.AttributeName;
      const range = elements.find((e) => e.KeyType === 'RANGE')?.AttributeName;
      if (!hash) throw new ValidationException('A key schema needs a HASH key');
      return range ? { hash, range } : { hash };
    };
    const gsis = (input['GlobalSecondaryIndexes'] ?? []) as Array<{
      IndexName: string;
      KeySchema: KeyElement[];
      Projection?: { ProjectionType?: string; NonKeyAttributes?: string[] };
    }>;
    const indexes: IndexDefinition[] = gsis.map((gsi) => ({
      name: gsi.IndexName,
      ...schemaOf(gsi.KeySchema),
      ...(gsi.Projection?.ProjectionType === 'ALL' ? {} : { include: gsi.Projection?.NonKeyAttributes ?? [] }),
    }));
    this.tables.set(name, new Table(name, schemaOf(input['KeySchema'] as KeyElement[]), indexes));
    return { TableDescription: { TableName: name, TableStatus: 'ACTIVE' } };
  }

  private get(input: Input) {
    const table = this.table(input);
    const item = table.get(input['Key'] as Item);
    this.usage.readUnits += units(item ? itemSize(item) : 0, 4096) * (input['ConsistentRead'] ? 1 : 0.5);
    return item ? { Item: copyItem(item) } : {};
  }

  private put(input: Input) {
    const table = this.table(input);
    const item = copyItem(input['Item'] as Item);
    this.write(table, item, () => item, input);
    return {};
  }

  private update(input: Input) {
    const table = this.table(input);
    const key = input['Key'] as Item;
    const actions = parseUpdate(String(input['UpdateExpression']), this.names(input));
    const values = this.values(input);
    const before = this.write(table, key, (stored) => applyUpdate(stored ?? copyItem(key), actions, values), input);
    // The item as it was before this write (the progress report's take-back puts back what it replaced).
    return input['ReturnValues'] === 'ALL_OLD' && before ? { Attributes: copyItem(before) } : {};
  }

  private delete(input: Input) {
    const table = this.table(input);
    this.write(table, input['Key'] as Item, () => undefined, input);
    return {};
  }

  /** One conditional single-item write, with its size check, usage and index propagation; returns the item it replaced. */
  private write(table: Table, key: Item, next: (before: Item | undefined) => Item | undefined, input: Input): Item | undefined {
    const before = table.get(key);
    const condition = input['ConditionExpression'];
    const writeUnits = (bytes: number) => units(bytes, 1024);
    if (typeof condition === 'string' && !evaluate(parseCondition(condition, this.names(input)), before ?? {}, this.values(input))) {
      this.usage.writeUnits += writeUnits(before ? itemSize(before) : 0);
      throw conditionFailed();
    }
    const after = next(before);
    if (after) {
      const size = itemSize(after);
      if (size > MAX_ITEM_BYTES) {
        this.usage.oversizedWrites++;
        throw new ValidationException(`Item size has exceeded the maximum allowed size (${size} bytes > ${MAX_ITEM_BYTES})`);
      }
      this.largestItemBytes = Math.max(this.largestItemBytes, size);
    }
    let indexWrites = 0;
    const tableKey = table.tableKeyOf(after ?? before ?? key);
    // `after` is this write's own copy; stored items are never mutated (every read returns a copy),
    // so the table and its indexes share it.
    const stored = after;
    for (const index of table.indexes.values()) {
      indexWrites += index.writeUnits(before, stored);
      index.propagate(tableKey, stored, this.now() + (this.options.indexLagMs?.() ?? 0));
    }
    table.put(key, stored);
    const written = writeUnits(Math.max(before ? itemSize(before) : 0, after ? itemSize(after) : 0)) + indexWrites;
    this.usage.writeUnits += written;
    if (/^(HISTORY|JOBLIST)#/.test(String(key[table.key.hash]))) this.usage.viewWriteUnits += written;
    this.writes++;
    this.written.add(String((after ?? before ?? key)[table.key.hash]));
    return before;
  }

  private query(input: Input) {
    const table = this.table(input);
    const indexName = input['IndexName'] as string | undefined;
    const index = indexName ? table.indexes.get(indexName) : undefined;
    if (indexName && !index) throw new ValidationException(`The table does not have the specified index: ${indexName}`);
    if (index && input['ConsistentRead']) throw new ValidationException('Consistent reads are not supported on global secondary indexes');
    const schema: KeySchema = index ? index.definition : table.key;
    const keyCondition = parseCondition(String(input['KeyConditionExpression']), this.names(input));
    const values = this.values(input);
    const hash = hashValue(keyCondition, schema.hash, values);
    const candidates = index ? index.partition(hash, this.now()) : table.partition(hash);
    const sorted = candidates
      .filter((item) => evaluate(keyCondition, item, values))
      .map((item) => ({ item, order: [schema.range ? item[schema.range] : '', table.tableKeyOf(item)] as const }))
      .sort((a, b) => compareKeys(a.order, b.order))
      .map(({ item }) => item);
    if (input['ScanIndexForward'] === false) sorted.reverse();
    const start = input['ExclusiveStartKey'] as Item | undefined;
    const from = start ? sorted.findIndex((item) => table.tableKeyOf(item) === table.tableKeyOf(start)) + 1 : 0;
    const limit = typeof input['Limit'] === 'number' ? input['Limit'] : Infinity;
    // As DynamoDB: Limit and the 1 MB page count the items read; the filter then drops some of them
    // (they are still paid for), and the projection trims what is returned.
    const filter = input['FilterExpression'] ? parseCondition(String(input['FilterExpression']), this.names(input)) : undefined;
    const projection = input['ProjectionExpression'] ? parseProjection(String(input['ProjectionExpression']), this.names(input)) : undefined;
    const page: Item[] = [];
    let scanned = 0;
    let bytes = 0;
    let i = from;
    let last: Item | undefined;
    for (; i < sorted.length && scanned < limit && bytes < QUERY_PAGE_BYTES; i++) {
      const item = sorted[i] as Item;
      scanned++;
      bytes += itemSize(item);
      last = item;
      if (filter && !evaluate(filter, item, values)) continue;
      page.push(projection ? project(item, projection) : copyItem(item));
    }
    this.usage.readUnits += units(bytes, 4096) * (input['ConsistentRead'] ? 1 : 0.5);
    const stoppedEarly = i < sorted.length || scanned >= limit;
    return {
      Items: page,
      Count: page.length,
      ScannedCount: scanned,
      ...(stoppedEarly && last ? { LastEvaluatedKey: { ...table.keyAttributes(last), ...(index ? table.keyAttributes(last, schema) : {}) } } : {}),
    };
  }

  private batchGet(input: Input) {
    const requests = input['RequestItems'] as Record<string, { Keys: Item[]; ConsistentRead?: boolean }>;
    const total = Object.values(requests).reduce((sum, request) => sum + request.Keys.length, 0);
    if (total > MAX_BATCH_GET_KEYS) throw new ValidationException('Too many items requested for the BatchGetItem call');
    const responses: Record<string, Item[]> = {};
    for (const [tableName, request] of Object.entries(requests)) {
      const table = this.table({ TableName: tableName });
      const found: Item[] = [];
      for (const key of request.Keys) {
        const item = table.get(key);
        this.usage.readUnits += units(item ? itemSize(item) : 0, 4096) * (request.ConsistentRead ? 1 : 0.5);
        if (item) found.push(copyItem(item));
      }
      responses[tableName] = found;
    }
    return { Responses: responses, UnprocessedKeys: {} };
  }

  private batchWrite(input: Input) {
    const requests = input['RequestItems'] as Record<string, Array<{ PutRequest?: { Item: Item }; DeleteRequest?: { Key: Item } }>>;
    const total = Object.values(requests).reduce((sum, list) => sum + list.length, 0);
    if (total > MAX_BATCH_WRITE_ITEMS) throw new ValidationException('Too many items requested for the BatchWriteItem call');
    for (const [tableName, list] of Object.entries(requests)) {
      const table = this.table({ TableName: tableName });
      for (const request of list) {
        if (request.PutRequest) {
          const item = copyItem(request.PutRequest.Item);
          this.write(table, item, () => item, {});
        } else if (request.DeleteRequest) this.write(table, request.DeleteRequest.Key, () => undefined, {});
      }
    }
    return { UnprocessedItems: {} };
  }

  private names(input: Input): Record<string, string> {
    return (input['ExpressionAttributeNames'] ?? {}) as Record<string, string>;
  }

  private values(input: Input): Record<string, unknown> {
    return (input['ExpressionAttributeValues'] ?? {}) as Record<string, unknown>;
  }
}

const OWN_SEND = MemoryDynamo.prototype.send;

/** `a, #b, c`: top-level attribute names (the adapters project no nested paths). */
function parseProjection(expression: string, names: Record<string, string>): string[] {
  return expression.split(',').map((part) => {
    const name = part.trim();
    const resolved = name.startsWith('#') ? names[name] : name;
    if (!resolved || !/^[A-Za-z0-9_.#-]+$/.test(name)) throw new ValidationException(`Invalid ProjectionExpression: ${expression}`);
    return resolved;
  });
}

function project(item: Item, attributes: readonly string[]): Item {
  return copyItem(Object.fromEntries(attributes.filter((name) => name in item).map((name) => [name, item[name]])));
}

function hashValue(condition: Condition, hashName: string, values: Record<string, unknown>): string {
  const hash = hashEquality(condition, hashName, values);
  if (hash === undefined) throw new ValidationException(`Query condition missed key schema element: ${hashName}`);
  return hash;
}

/** The value of the first `hashName = :value` of a key condition (an AND's left side first). */
function hashEquality(condition: Condition, hashName: string, values: Record<string, unknown>): string | undefined {
  if (condition.kind === 'and') return hashEquality(condition.left, hashName, values) ?? hashEquality(condition.right, hashName, values);
  if (condition.kind === 'compare' && condition.op === '=' && condition.left.kind === 'path' && condition.right.kind === 'value') {
    if (condition.left.path.length === 1 && condition.left.path[0] === hashName) return String(values[condition.right.name]);
  }
  return undefined;
}

function compareKeys(a: readonly [unknown, string], b: readonly [unknown, string]): number {
  const [ra, ta] = a;
  const [rb, tb] = b;
  if (ra !== rb) {
    if (typeof ra === 'number' && typeof rb === 'number') return ra - rb;
    return String(ra) < String(rb) ? -1 : 1;
  }
  return ta < tb ? -1 : ta > tb ? 1 : 0;
}
