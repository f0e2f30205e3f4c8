import { DynamoDBDocumentClient } from '@aws-sdk/lib-dynamodb';
import { DynamoJobStore } from '../../../shared/adapters/aws/dynamo-job-store.js';
import type { TestManager } from './test-manager.js';

/**
 * The real job store over the test table whose next consistent read of a grant record (the read a
 * grant makes after its update found a record it may not update: an earlier job's, or a newer grant)
 * lets a competitor run to completion before the grant goes on.
 */
export function storePausedAfterGrantRead(m: TestManager): { jobs: DynamoJobStore; afterNextGrantRead(competitor: () => Promise<unknown>): void } {
  let competitor: (() => Promise<unknown>) | undefined;
  const doc = DynamoDBDocumentClient.from(m.dynamo.client, { marshallOptions: { removeUndefinedValues: true } });
  const send = doc.send.bind(doc) as (command: unknown) => Promise<unknown>;
  doc.send = (async (command: { constructor: { name: string }; input: { Key?: { sk?: unknown } } }) => {
    const answer = await send(command);
    const grantRead = command.constructor.name === 'GetCommand' && String(command.input.Key?.sk ?? '').startsWith('GRANT#');
    const run = grantRead ? competitor : undefined;
    if (run) {
      competitor = undefined;
      await run();
    }
    return answer;
  }) as unknown as typeof doc.send;
  return { jobs: new DynamoJobStore(doc, m.tableName), afterNextGrantRead: (next) => (competitor = next) };
}
