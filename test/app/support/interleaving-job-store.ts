import { DynamoJobStore } from '../../../shared/adapters/aws/dynamo-job-store.js';
import type { WorkerGrantRecord } from '../../../shared/domain/extension-ledger.js';
import type { Job } from '../../../shared/domain/job.js';
import type { WorkerHealth } from '../../../shared/domain/worker-health.js';

type Competitor = () => Promise<unknown>;

/**
 * The real DynamoDB store with interleaving points: the next `saveJob` (or `saveWorker`, or `recordGrant`) first lets a
 * competitor run to completion. The caller has already loaded and decided, so both decisions come
 * from the same stored version and the competitor's write lands first.
 */
export class InterleavingJobStore extends DynamoJobStore {
  private beforeJob: Competitor | undefined;
  private beforeWorker: Competitor | undefined;
  private beforeGrantRecord: Competitor | undefined;

  beforeNextSave(competitor: Competitor): void {
    this.beforeJob = competitor;
  }

  beforeNextWorkerSave(competitor: Competitor): void {
    this.beforeWorker = competitor;
  }

  beforeNextGrantRecord(competitor: Competitor): void {
    this.beforeGrantRecord = competitor;
  }

  override async recordGrant(record: WorkerGrantRecord): Promise<number> {
    await this.runCompetitor('beforeGrantRecord');
    return super.recordGrant(record);
  }

  override async saveJob(job: Job, expectedVersion: number): Promise<Job> {
    await this.runCompetitor('beforeJob');
    return super.saveJob(job, expectedVersion);
  }

  override async saveWorker(worker: WorkerHealth, expectedVersion: number): Promise<WorkerHealth> {
    await this.runCompetitor('beforeWorker');
    return super.saveWorker(worker, expectedVersion);
  }

  private async runCompetitor(which: 'beforeJob' | 'beforeWorker' | 'beforeGrantRecord'): Promise<void> {
    const competitor = this[which];
    this[which] = undefined;
    if (competitor) await competitor();
  }
}
