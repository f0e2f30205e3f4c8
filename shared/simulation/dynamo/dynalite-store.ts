import { BatchWriteCommand, DeleteCommand, PutCommand, UpdateCommand, type DynamoDBDocumentClient } from '@aws-sdk/lib-dynamodb';
import { startLocalDynamo } from '../../adapters/local/dynalite-server.js';
import { newDynamoUsage } from './dynamo-usage.js';
import type { SimStore, StoreHooks } from './sim-store.js';

type Item = Record<string, unknown>;

/** The partition keys a write command touches (`pk`, the key attribute of Vigil's tables). */
function writtenPartitions(command: { input: unknown }): string[] {
  const input = command.input as { Key?: Item; Item?: Item; RequestItems?: Record<string, Array<{ PutRequest?: { Item: Item }; DeleteRequest?: { Key: Item } }>> };
  if (command instanceof PutCommand) return [String(input.Item?.['pk'])];
  if (command instanceof UpdateCommand || command instanceof DeleteCommand) return [String(input.Key?.['pk'])];
  if (command instanceof BatchWriteCommand) {
    return Object.values(input.RequestItems ?? {}).flatMap((requests) =>
      requests.map((r) => String((r.PutRequest?.Item ?? r.DeleteRequest?.Key)?.['pk'])),
    );
  }
  return [];
}

/**
 * dynalite (a real implementation of the DynamoDB API) as a simulator store: slower, with
 * immediately consistent indexes and no usage counts, but it checks the in-memory store's answers.
 */
export async function startDynaliteStore(hooks: StoreHooks): Promise<SimStore> {
  const dynamo = await startLocalDynamo();
  const written = new Set<string>();
  const send = async (command: { input: unknown }) => {
    const partitions = writtenPartitions(command);
    const afterWrite = hooks.beforeCall?.(partitions.length > 0);
    const answered = dynamo.doc.send(command as Parameters<DynamoDBDocumentClient['send']>[0]);
    if (partitions.length === 0) return answered;
    let tookEffect = false;
    try {
      const answer = await answered;
      tookEffect = true;
      for (const pk of partitions) written.add(pk);
      return answer;
    } finally {
      afterWrite?.(tookEffect);
    }
  };
  return {
    doc: { send } as unknown as DynamoDBDocumentClient,
    client: dynamo.client,
    observer: dynamo.doc,
    usage: newDynamoUsage(),
    largestItemBytes: 0,
    drainWrittenPartitions: () => {
      const drained = new Set(written);
      written.clear();
      return drained;
    },
    close: () => dynamo.close(),
  };
}
