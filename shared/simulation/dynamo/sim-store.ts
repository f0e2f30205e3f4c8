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
  close(): Promise<void>;
}

export type StoreKind = 'memory' | 'dynalite';

/** How the world watches the handlers' calls (never the observer's): the crash fault hooks in here. */
export interface StoreHooks {
  /** Before each call: throws to refuse it. */
  beforeCall?: () => void;
  /** After each write that changed an item. */
  onWrite?: () => void;
}
