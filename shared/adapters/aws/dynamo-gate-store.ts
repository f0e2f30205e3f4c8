import type { DynamoDBDocumentClient } from '@aws-sdk/lib-dynamodb';
import { sendGet } from './document-calls.js';
import { allRegionsFinal, type GateJob } from '../../domain/gate/gate-job.js';
import type { EpochMs } from '../../domain/time.js';
import type { GateStore } from '../../ports/gate-store.js';
import { queryDueTimers } from './due-timers-query.js';
import { timerShardOf, TTL_ATTRIBUTE } from './jobs-table.js';
import { createOrReturnExisting, putVersioned, withoutStorageAttributes } from './versioned-item.js';

const FINISHED_JOB_RETENTION_SECONDS = 30 * 24 * 3600;

export const gateJobKey = (jobId: string) => ({ pk: `GATEJOB#${jobId}`, sk: 'GATEJOB' });
const asGateJob = (item: Record<string, unknown>) => withoutStorageAttributes(item) as unknown as GateJob;

function indexAttributes(job: GateJob, now: EpochMs): Record<string, unknown> {
  return {
    ...(job.timerDueAt !== undefined ? { timerShard: timerShardOf(job.jobId, allRegionsFinal(job)), timerFenceToken: job.timeoutFenceToken } : {}),
    ...(allRegionsFinal(job) ? { [TTL_ATTRIBUTE]: Math.floor(now / 1000) + FINISHED_JOB_RETENTION_SECONDS } : {}),
  };
}

/** The gate's view of every job, one item each, in the gate region's table. */
export class DynamoGateStore implements GateStore {
  constructor(
    private readonly doc: DynamoDBDocumentClient,
    private readonly tableName: string,
    private readonly now: () => EpochMs = Date.now,
  ) {}

  async get(jobId: string): Promise<GateJob | undefined> {
    const { Item } = await sendGet(this.doc, { TableName: this.tableName, Key: gateJobKey(jobId), ConsistentRead: true });
    return Item ? asGateJob(Item) : undefined;
  }

  create(job: GateJob) {
    return createOrReturnExisting(
      () => putVersioned(this.doc, this.tableName, gateJobKey(job.jobId), job, 0, indexAttributes(job, this.now())),
      () => this.get(job.jobId),
    );
  }

  save(job: GateJob, expectedVersion: number): Promise<GateJob> {
    return putVersioned(this.doc, this.tableName, gateJobKey(job.jobId), job, expectedVersion, indexAttributes(job, this.now()));
  }

  findDueTimers(dueBy: EpochMs, limit: number) {
    return queryDueTimers(this.doc, this.tableName, 'gate', dueBy, limit);
  }
}
