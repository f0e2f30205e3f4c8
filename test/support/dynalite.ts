import { randomUUID } from 'node:crypto';
import { ensureTable } from '../../shared/adapters/aws/jobs-table.js';
import { startLocalDynamo, type LocalDynamo } from '../../shared/adapters/local/dynalite-server.js';

/** An in-memory dynalite with one fresh table per call of `table()`. */
export async function startTestDynamo(): Promise<LocalDynamo & { table(withWorkerIndex?: boolean): Promise<string> }> {
  const dynamo = await startLocalDynamo();
  return {
    ...dynamo,
    async table(withWorkerIndex = true) {
      const name = `vigil-test-${randomUUID().slice(0, 8)}`;
      await ensureTable(dynamo.client, name, withWorkerIndex);
      return name;
    },
  };
}
