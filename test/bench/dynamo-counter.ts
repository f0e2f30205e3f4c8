import type { DynamoDBClient } from '@aws-sdk/client-dynamodb';

/** DynamoDB requests by operation, and items written by `Operation kind` (job, workflow, worker). */
export interface DynamoTally {
  requests: Record<string, number>;
  itemWrites: Record<string, number>;
  conditionalFailures: number;
}

const SINGLE_ITEM_WRITES = new Set(['PutItem', 'UpdateItem', 'DeleteItem']);

/**
 * Counts what a DynamoDB client sends, before retries (the `initialize` step): every request by
 * operation, every item a write touches (a BatchWriteItem counts its items), and the conditional
 * writes DynamoDB refused (they are billed all the same). The document client shares this stack.
 */
export function countDynamoRequests(client: DynamoDBClient): DynamoTally {
  const tally: DynamoTally = { requests: {}, itemWrites: {}, conditionalFailures: 0 };
  const bump = (record: Record<string, number>, key: string, by = 1) => (record[key] = (record[key] ?? 0) + by);
  client.middlewareStack.add(
    (next, context) => async (args) => {
      const operation = (context.commandName ?? 'Unknown').replace(/Command$/, '');
      bump(tally.requests, operation);
      if (SINGLE_ITEM_WRITES.has(operation)) bump(tally.itemWrites, `${operation} ${itemKindOf(args.input)}`);
      if (operation === 'BatchWriteItem' || operation === 'TransactWriteItems') bump(tally.itemWrites, operation, writeItemsOf(args.input));
      try {
        return await next(args);
      } catch (error) {
        if (error instanceof Error && error.name === 'ConditionalCheckFailedException') tally.conditionalFailures++;
        throw error;
      }
    },
    { step: 'initialize', name: 'benchRequestCounter' },
  );
  return tally;
}

export const totalOf = (record: Record<string, number>): number => Object.values(record).reduce((sum, n) => sum + n, 0);

/** Which item a single-item write targets, by its sort key. */
function itemKindOf(input: unknown): string {
  if (typeof input !== 'object' || input === null) return 'item';
  const keyed = 'Key' in input ? input.Key : 'Item' in input ? input.Item : undefined;
  const sk = typeof keyed === 'object' && keyed !== null && 'sk' in keyed ? keyed.sk : undefined;
  if (sk === 'JOB') return 'job';
  if (sk === 'WORKER') return 'worker';
  if (typeof sk === 'string' && sk.startsWith('WF#')) return 'workflow';
  return 'item';
}

/** Items a BatchWriteItem / TransactWriteItems request writes. */
function writeItemsOf(input: unknown): number {
  if (typeof input !== 'object' || input === null) return 0;
  if ('TransactItems' in input && Array.isArray(input.TransactItems)) return input.TransactItems.length;
  if (!('RequestItems' in input) || typeof input.RequestItems !== 'object' || input.RequestItems === null) return 0;
  return Object.values(input.RequestItems).reduce((sum: number, requests) => sum + (Array.isArray(requests) ? requests.length : 0), 0);
}
