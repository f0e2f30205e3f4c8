import type { DynamoDBDocumentClient } from '@aws-sdk/lib-dynamodb';
import { batchPut } from './batch-requests.js';

type Item = Record<string, unknown>;

interface Waiting {
  items: readonly Item[];
  resolve: () => void;
  reject: (error: unknown) => void;
}

const keyOf = (item: Item): string => `${String(item['pk'])}\u0000${String(item['sk'])}`;

/**
 * Group commit for idempotent puts (history entries, jobs-list rows): the puts asked for during one
 * turn of the event loop go out together, 25 items per BatchWriteItem, and each caller's promise
 * settles with the request that carried its items. Under a burst of decisions (1,000 timeouts in
 * 3 s) this turns one request per decision into one per 12 or so; a lone put waits one turn. On
 * dynalite a 25-item batch costs 0.16 ms an item against 0.94 ms for a single put.
 *
 * A batch never names a key twice (DynamoDB refuses it), and a put of a key that an earlier batch
 * is still writing goes out after that batch, so the later put of a key wins, as separate requests would.
 */
export class GroupCommit {
  private open: Waiting[] = [];
  private openKeys = new Set<string>();
  /** Each key being written, with the batch writing it (settled either way). */
  private readonly writing = new Map<string, Promise<void>>();

  constructor(
    private readonly doc: DynamoDBDocumentClient,
    private readonly tableName: string,
  ) {}

  put(puts: readonly Item[]): Promise<void> {
    if (puts.length === 0) return Promise.resolve();
    // A key named twice in one call: its last item, as two puts in a row would leave.
    const items = [...new Map(puts.map((item) => [keyOf(item), item])).values()];
    return new Promise((resolve, reject) => {
      if (items.some((item) => this.openKeys.has(keyOf(item)))) this.flush();
      this.open.push({ items, resolve, reject });
      for (const item of items) this.openKeys.add(keyOf(item));
      if (this.open.length === 1) setImmediate(() => this.flush());
    });
  }

  private flush(): void {
    const batch = this.open;
    if (batch.length === 0) return;
    const keys = [...this.openKeys];
    this.open = [];
    this.openKeys = new Set();
    const earlier = new Set(keys.flatMap((key) => this.writing.get(key) ?? []));
    const written = Promise.all(earlier).then(() => batchPut(this.doc, this.tableName, batch.flatMap((waiting) => waiting.items)));
    const settled = written.then(
      () => batch.forEach((waiting) => waiting.resolve()),
      (error: unknown) => batch.forEach((waiting) => waiting.reject(error)),
    );
    for (const key of keys) this.writing.set(key, settled);
    void settled.then(() => {
      for (const key of keys) if (this.writing.get(key) === settled) this.writing.delete(key);
    });
  }
}
