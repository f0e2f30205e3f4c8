import { DynamoJobStore } from '../../../shared/adapters/aws/dynamo-job-store.js';
import type { Job } from '../../../shared/domain/job.js';

/**
 * The real DynamoDB store with one interleaving point: the next `saveJob` first lets a competitor
 * run to completion. The caller has already loaded and decided, so both decisions come from the
 * same stored version and the competitor's write lands first.
 */
export class InterleavingJobStore extends DynamoJobStore {
  private competitor: (() => Promise<unknown>) | undefined;

  beforeNextSave(competitor: () => Promise<unknown>): void {
    this.competitor = competitor;
  }

  override async saveJob(job: Job, expectedVersion: number): Promise<Job> {
    const competitor = this.competitor;
    this.competitor = undefined;
    if (competitor) await competitor();
    return super.saveJob(job, expectedVersion);
  }
}
