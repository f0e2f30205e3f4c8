import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { ensureTable } from '../../../shared/adapters/aws/jobs-table.js';
import { startLocalDynamo } from '../../../shared/adapters/local/dynalite-server.js';
import type { TestDynamo } from './test-manager.js';

const TABLE = 'vigil-jobs';

/**
 * A dynalite persisted in a directory, as the local cloud runs it: `restart()` closes it and
 * opens the same directory again, like a `kill -9` and a restart of `npm start`.
 */
export class DiskDynamo {
  private readonly dir = mkdtempSync(join(tmpdir(), 'vigil-restart-'));
  private current: TestDynamo | undefined;

  async start(): Promise<TestDynamo> {
    const dynamo = await startLocalDynamo(this.dir);
    this.current = {
      ...dynamo,
      async table() {
        await ensureTable(dynamo.client, TABLE, true);
        return TABLE;
      },
    };
    return this.current;
  }

  async restart(): Promise<TestDynamo> {
    await this.current?.close();
    return this.start();
  }

  async remove(): Promise<void> {
    await this.current?.close();
    this.current = undefined;
    rmSync(this.dir, { recursive: true, force: true });
  }
}
