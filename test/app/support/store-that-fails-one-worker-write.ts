import { DynamoJobStore } from '../../../shared/adapters/aws/dynamo-job-store.js';
import type { WorkerHealth } from '../../../shared/domain/worker-health.js';

/** The real store, except that the next worker write can be made to fail as a crash would. */
export class StoreThatFailsOneWorkerWrite extends DynamoJobStore {
  failNextWorkerWrite = false;
  override async saveWorker(worker: WorkerHealth, expectedVersion: number): Promise<WorkerHealth> {
    if (this.failNextWorkerWrite) {
      this.failNextWorkerWrite = false;
      throw new Error('the process died before the worker budget was written');
    }
    return super.saveWorker(worker, expectedVersion);
  }
}
