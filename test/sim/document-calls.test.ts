import { ConditionalCheckFailedException } from '@aws-sdk/client-dynamodb';
import { GetCommand, PutCommand, type DynamoDBDocumentClient } from '@aws-sdk/lib-dynamodb';
import { describe, expect, it } from 'vitest';
import { sendGet, sendPut } from '../../shared/adapters/aws/document-calls.js';
import { ensureTable } from '../../shared/adapters/aws/jobs-table.js';
import { MemoryDynamo } from '../../shared/simulation/dynamo/memory-dynamo.js';

const TABLE = 'vigil-document-calls';

async function memoryStore(): Promise<MemoryDynamo> {
  const memory = new MemoryDynamo();
  await ensureTable(memory.client, TABLE, true);
  return memory;
}

/**
 * The adapters' DynamoDB calls (`document-calls.ts`): a real client is sent the lib-dynamodb command;
 * the in-memory store answers the same call from the command's class and input, with the same answer.
 */
describe('document calls', () => {
  it('send a real client the command, and answer what it answers', async () => {
    const sent: unknown[] = [];
    const doc = {
      send: async (command: unknown) => {
        sent.push(command);
        return { Item: { pk: 'a', sk: 'b' } };
      },
    } as unknown as DynamoDBDocumentClient;
    const input = { TableName: TABLE, Key: { pk: 'a', sk: 'b' }, ConsistentRead: true };
    expect(await sendGet(doc, input)).toEqual({ Item: { pk: 'a', sk: 'b' } });
    expect(sent).toHaveLength(1);
    expect(sent[0]).toBeInstanceOf(GetCommand);
    expect((sent[0] as GetCommand).input).toBe(input);
  });

  it('reach the in-memory store without a command, and answer as its send() does', async () => {
    const memory = await memoryStore();
    await sendPut(memory.doc, { TableName: TABLE, Item: { pk: 'a', sk: 'b', n: 1 } });
    const key = { TableName: TABLE, Key: { pk: 'a', sk: 'b' }, ConsistentRead: true };
    expect(await sendGet(memory.doc, key)).toEqual(await memory.doc.send(new GetCommand(key)));
    await expect(sendPut(memory.doc, { TableName: TABLE, Item: { pk: 'a', sk: 'b' }, ConditionExpression: 'attribute_not_exists(pk)' })).rejects.toBeInstanceOf(
      ConditionalCheckFailedException,
    );
    expect(memory.usage.calls).toEqual({ CreateTable: 1, DescribeTable: 1, Put: 2, Get: 2 });
    // The observer's reads are not counted, by either way in.
    await sendGet(memory.observer, key);
    await memory.observer.send(new GetCommand(key));
    expect(memory.usage.calls['Get']).toBe(2);
  });

  it('go through a replaced send() of the in-memory store, as commands (a test watching the calls)', async () => {
    const memory = await memoryStore();
    const seen: string[] = [];
    const send = memory.send.bind(memory);
    memory.send = (command: { input: unknown }) => {
      seen.push(command.constructor.name);
      return send(command);
    };
    await sendPut(memory.doc, { TableName: TABLE, Item: { pk: 'a', sk: 'b' } });
    expect((await sendGet(memory.doc, { TableName: TABLE, Key: { pk: 'a', sk: 'b' } })).Item).toEqual({ pk: 'a', sk: 'b' });
    expect(seen).toEqual([PutCommand.name, GetCommand.name]);
  });
});
