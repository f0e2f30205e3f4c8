import type { DynamoDBClient } from '@aws-sdk/client-dynamodb';
import type { DynamoDBDocumentClient } from '@aws-sdk/lib-dynamodb';
import type { DynamoUsage } from './dynamo-usage.js';

/** A node's DynamoDB as the simulator uses it: the in-memory store, or dynalite (`--store dynalite`). */
export interface SimStore {
  /** What the adapters write and read through. */
  readonly doc: DynamoDBDocumentClient;
  /** For CreateTable (the adapters' `ensureTable`). */
  readonly client: DynamoDBClient;
  /** The invariant checks read through this: not counted, never a handler's write. */
  readonly observer: DynamoDBDocumentClient;
  readonly usage: DynamoUsage;
  readonly largestItemBytes: number;
  /** Partition keys written since the last call. */
  drainWrittenPartitions(): Set<string>;
  /**
   * The object the store keeps for an item's current version (`undefined` when there is none), never
   * changed in place: the same object, the same item. Only the in-memory store can tell.
   */
  storedItem?(tableName: string, key: Record<string, unknown>): object | undefined;
  close(): Promise<void>;
}

export type StoreKind = 'memory' | 'dynalite';

/**
 * How the world watches the handlers' calls (never the observer's): the crash fault hooks in here.
 * A write is one write call (a BatchWrite is one): a process dies between calls, not inside one.
 */
export interface StoreHooks {
  /**
   * Before each call, saying whether it writes: throws to refuse it (a dead invocation, or one dying
   * before this write). For a write, returns what to call once it ended, saying whether it took effect
   * or was refused: that throws if the invocation dies right after it (calls in flight together each
   * keep their own number).
   */
  beforeCall?: (writes: boolean) => AfterWrite | undefined;
}

export type AfterWrite = (tookEffect: boolean) => void;
