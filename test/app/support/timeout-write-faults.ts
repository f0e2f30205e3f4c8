import { ProvisionedThroughputExceededException } from '@aws-sdk/client-dynamodb';
import type { Job } from '../../../shared/domain/job.js';
import type { JobStore } from '../../../shared/ports/job-store.js';

export type WriteFault = 'fail' | 'hang';

/**
 * Faults on the write that ends a running job (its timeout). A running job's other writes (the
 * sweep's back-off of its wake-up) pass, and so does every write after the end is stored (its
 * outbox's bookkeeping). `fail` is DynamoDB's throttling error as the SDK throws it once its own
 * attempts are spent (a hot item); `hang` never answers (a black-holed endpoint). Every try of the
 * ending write is logged, faulted or not.
 */
export class TimeoutWriteFaults {
  readonly log: Array<{ jobId: string; at: number; fault?: WriteFault }> = [];
  private readonly faults = new Map<string, { fault: WriteFault; left: number }>();
  private readonly ended = new Set<string>();

  /** `stamp` dates each logged try (the test's clock, or a sweep's stopwatch). */
  constructor(private readonly stamp: () => number = () => 0) {}

  /** The next `times` tries of `jobId`'s ending write meet `fault` (every one by default: a poison entry). */
  inject(jobId: string, fault: WriteFault, times = Number.POSITIVE_INFINITY): void {
    this.faults.set(jobId, { fault, left: times });
  }

  clear(): void {
    this.faults.clear();
    this.ended.clear();
    this.log.length = 0;
  }

  /** Tries of `jobId`'s ending write logged at `at`, or in all. */
  triesOf(jobId: string, at?: number): number {
    return this.log.filter((entry) => entry.jobId === jobId && (at === undefined || entry.at === at)).length;
  }

  /** `jobs` with the faults applied; every other call goes to it unchanged. */
  wrap<Store extends JobStore>(jobs: Store): Store {
    const faulty: Store = Object.create(jobs);
    faulty.saveJob = async (job: Job, expectedVersion: number) => {
      if (job.status === 'RUNNING' || this.ended.has(job.jobId)) return jobs.saveJob(job, expectedVersion);
      const injected = this.faults.get(job.jobId);
      const fault = injected && injected.left > 0 ? injected.fault : undefined;
      if (injected && fault) injected.left--;
      this.log.push({ jobId: job.jobId, at: this.stamp(), ...(fault ? { fault } : {}) });
      if (fault === 'hang') return new Promise<Job>(() => {});
      if (fault === 'fail') {
        throw new ProvisionedThroughputExceededException({ $metadata: {}, message: `The level of configured provisioned throughput for the table was exceeded (injected for ${job.jobId})` });
      }
      const saved = await jobs.saveJob(job, expectedVersion);
      this.ended.add(job.jobId);
      return saved;
    };
    return faulty;
  }
}
