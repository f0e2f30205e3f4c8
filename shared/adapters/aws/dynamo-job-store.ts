import { ConditionalCheckFailedException } from '@aws-sdk/client-dynamodb';
import type { DynamoDBDocumentClient, QueryCommandInput, UpdateCommandInput } from '@aws-sdk/lib-dynamodb';
import { sendGet, sendPut, sendUpdate } from './document-calls.js';
import type { WorkerGrantRecord } from '../../domain/extension-ledger.js';
import { isTerminal, type Job, type Workflow } from '../../domain/job.js';
import { lastHeardAt, type WorkflowAdvance } from '../../domain/record-progress.js';
import type { EpochMs } from '../../domain/time.js';
import { scopedWorkerId } from '../../domain/tenant.js';
import type { WorkerHealth } from '../../domain/worker-health.js';
import { VersionConflictError, type JobStore, type ReportedWorkflowFields, type WorkflowRef } from '../../ports/job-store.js';
import { batchGet } from './batch-requests.js';
import { queryDueTimers } from './due-timers-query.js';
import { queryItems } from './query-pages.js';
import { timerShardOf, TTL_ATTRIBUTE, WORKER_INDEX } from './jobs-table.js';
import { createOrReturnExisting, landedAlready, newWriteId, putVersioned, withoutStorageAttributes, WRITE_ID } from './versioned-item.js';
import { workflowKey, WorkflowReportWrites } from './workflow-report-writes.js';

/** Finished jobs stay readable this long, then DynamoDB TTL removes the job item. */
const FINISHED_JOB_RETENTION_SECONDS = 30 * 24 * 3600;
/** Conditional workflow puts a submit keeps in flight at once. */
const WORKFLOW_PUTS_IN_FLIGHT = 25;

export const jobKey = (jobId: string) => ({ pk: `JOB#${jobId}`, sk: 'JOB' });
const workerKey = (workerId: string) => ({ pk: `WORKER#${workerId}`, sk: 'WORKER' });
const GRANT_PREFIX = 'GRANT#';
const grantKey = (jobId: string, workerId: string) => ({ pk: `JOB#${jobId}`, sk: `${GRANT_PREFIX}${workerId}` });

const asJob = (item: Record<string, unknown>) => withoutStorageAttributes(item) as unknown as Job;
const asWorkflow = (item: Record<string, unknown>) => withoutStorageAttributes(item) as unknown as Workflow;
const asWorker = (item: Record<string, unknown>) => withoutStorageAttributes(item) as unknown as WorkerHealth;
/** A grant record of this job, not of an earlier job with the same id (records from before incarnations were kept count as this job's). */
const ofIncarnation = (record: WorkerGrantRecord, incarnation: string | undefined) =>
  incarnation === undefined || record.incarnation === undefined || record.incarnation === incarnation;

const asGrant = (item: Record<string, unknown>) => withoutStorageAttributes(item, ['index']) as unknown as WorkerGrantRecord;

/** Seconds since the epoch for DynamoDB TTL. */
const ttlSeconds = (at: EpochMs) => Math.floor(at / 1000) + FINISHED_JOB_RETENTION_SECONDS;

/** Rounds of a grant record's write; two suffice unless its job id keeps changing job under it. */
const GRANT_RECORD_TRIES = 3;

/** A grant record's stored fields (its index aside), with its TTL. */
const grantRecordFields = (record: Omit<WorkerGrantRecord, 'workerIndex'>): Record<string, unknown> => ({
  ...record,
  ...(record.retainUntil !== undefined ? { [TTL_ATTRIBUTE]: ttlSeconds(record.retainUntil) } : {}),
});

/** The index attributes a job item carries: the timer while it has one, a TTL once it is finished. */
function jobIndexAttributes(job: Job): Record<string, unknown> {
  return {
    // A finished job's wake-up only retries its outbox, swept after the decisions; one cancelled here still owes the gate its cancel.
    ...(job.timerDueAt !== undefined
      ? { timerShard: timerShardOf(job.jobId, isTerminal(job.status) && job.cancelToSpread === undefined), timerFenceToken: job.tracking.fenceToken }
      : {}),
    ...(isTerminal(job.status) && job.finishedAt !== undefined
      ? { [TTL_ATTRIBUTE]: ttlSeconds(job.finishedAt) }
      : {}),
  };
}

export class DynamoJobStore implements JobStore {
  private readonly reportWrites: WorkflowReportWrites;

  constructor(
    private readonly doc: DynamoDBDocumentClient,
    private readonly tableName: string,
  ) {
    this.reportWrites = new WorkflowReportWrites(doc, tableName);
  }

  async getJob(jobId: string): Promise<Job | undefined> {
    const { Item } = await sendGet(this.doc, { TableName: this.tableName, Key: jobKey(jobId), ConsistentRead: true });
    return Item ? asJob(Item) : undefined;
  }

  async getJobWithWorkflows(jobId: string) {
    let job: Job | undefined;
    const workflows: Workflow[] = [];
    // From `JOB` on: the job and its `WF#` items. The `GRANT#` records sort before it and are not read:
    // a job answer wants only its page's workers' (a 10,000-worker job's are as many items again).
    const items = await this.queryAll({
      KeyConditionExpression: 'pk = :pk AND sk >= :job',
      ExpressionAttributeValues: { ':pk': jobKey(jobId).pk, ':job': jobKey(jobId).sk },
      ConsistentRead: true,
    });
    for (const item of items) {
      if (item['sk'] === jobKey(jobId).sk) job = asJob(item);
      else workflows.push(asWorkflow(item));
    }
    return job ? { job, workflows: workflows.sort((a, b) => a.index - b.index) } : undefined;
  }

  async getWorkflow(jobId: string, workflowId: string): Promise<Workflow | undefined> {
    const { Item } = await sendGet(this.doc, { TableName: this.tableName, Key: workflowKey(jobId, workflowId), ConsistentRead: true });
    return Item ? asWorkflow(Item) : undefined;
  }

  async getWorkflowsAfter(jobId: string, afterWorkflowId: string | undefined, limit: number) {
    const items = await queryItems(
      this.doc,
      {
        TableName: this.tableName,
        KeyConditionExpression: 'pk = :pk AND begins_with(sk, :wf)',
        ExpressionAttributeValues: { ':pk': jobKey(jobId).pk, ':wf': 'WF#' },
        ConsistentRead: true,
        ...(afterWorkflowId !== undefined ? { ExclusiveStartKey: workflowKey(jobId, afterWorkflowId) } : {}),
      },
      // One more than asked tells whether others follow.
      limit + 1,
    );
    const workflows = items.map(asWorkflow);
    return { workflows: workflows.slice(0, limit), more: workflows.length > limit };
  }

  async getProgressContext(jobId: string, workflowId: string, workerId: string) {
    const items = await batchGet(this.doc, this.tableName, [jobKey(jobId), workflowKey(jobId, workflowId), workerKey(workerId)]);
    const bySk = (prefix: string) => items.find((item) => String(item['sk']).startsWith(prefix));
    const job = bySk('JOB');
    const workflow = bySk('WF#');
    const worker = bySk('WORKER');
    return {
      ...(job ? { job: asJob(job) } : {}),
      ...(workflow ? { workflow: asWorkflow(workflow) } : {}),
      ...(worker ? { worker: asWorker(worker) } : {}),
    };
  }

  createJob(job: Job, workflows: readonly Workflow[]) {
    // The job item first, conditionally: a second submission with another body gets the existing
    // job back and writes nothing, so it cannot overwrite the winner's workflows.
    return createOrReturnExisting(
      async () => {
        const stored = await putVersioned(this.doc, this.tableName, jobKey(job.jobId), job, 0, jobIndexAttributes(job));
        await this.putWorkflows(workflows);
        return stored;
      },
      () => this.getJob(job.jobId),
    );
  }

  /**
   * Writes each workflow item its incarnation has not written yet. Conditional, one put each: a submit
   * and its resend both write a job's workflows, and the later one must not put back to new a workflow a
   * worker already reported on with the earlier one's tokens (BatchWriteItem takes no condition).
   */
  async putWorkflows(workflows: readonly Workflow[]): Promise<void> {
    for (let start = 0; start < workflows.length; start += WORKFLOW_PUTS_IN_FLIGHT) {
      await Promise.all(workflows.slice(start, start + WORKFLOW_PUTS_IN_FLIGHT).map((w) => this.putNewWorkflow(w)));
    }
  }

  private async putNewWorkflow(w: Workflow): Promise<void> {
    try {
      await sendPut(this.doc, {
        TableName: this.tableName,
        Item: {
          ...w,
          ...workflowKey(w.jobId, w.workflowId),
          gsiWorkerId: scopedWorkerId(w.tenant, w.workerId),
          ...(w.retainUntil !== undefined ? { [TTL_ATTRIBUTE]: ttlSeconds(w.retainUntil) } : {}),
        },
        // An earlier job's item with this id (expired) is replaced; this job's own is kept.
        ConditionExpression: 'attribute_not_exists(pk) OR attribute_not_exists(incarnation) OR incarnation <> :incarnation',
        ExpressionAttributeValues: { ':incarnation': w.incarnation },
      });
    } catch (error) {
      if (!(error instanceof ConditionalCheckFailedException)) throw error;
    }
  }

  saveJob(job: Job, expectedVersion: number): Promise<Job> {
    return putVersioned(this.doc, this.tableName, jobKey(job.jobId), job, expectedVersion, jobIndexAttributes(job));
  }

  async latestWorkflowProgressAt(jobId: string, incarnation: string): Promise<EpochMs | undefined> {
    const items = await this.queryAll({
      KeyConditionExpression: 'pk = :pk AND begins_with(sk, :wf)',
      ProjectionExpression: 'lastProgressAt, incarnation',
      ExpressionAttributeValues: { ':pk': jobKey(jobId).pk, ':wf': 'WF#' },
      ConsistentRead: true,
    });
    let latest: EpochMs | undefined;
    for (const item of items) {
      const at = item['lastProgressAt'];
      if (item['incarnation'] === incarnation && typeof at === 'number' && (latest === undefined || at > latest)) latest = at;
    }
    return latest;
  }

  recordWorkflowAdvance(jobId: string, workflowId: string, at: EpochMs, advance: WorkflowAdvance) {
    return this.reportWrites.advance(jobId, workflowId, at, advance);
  }

  touchWorkflowHeartbeat(jobId: string, workflowId: string, at: EpochMs) {
    return this.reportWrites.heartbeat(jobId, workflowId, at);
  }

  withdrawWorkflowWrite(workflow: Pick<Workflow, 'jobId' | 'workflowId' | 'incarnation'>, at: EpochMs, advance: WorkflowAdvance | undefined, restore: ReportedWorkflowFields) {
    return this.reportWrites.withdraw(workflow, at, advance, restore);
  }

  async findWorkOfWorker(workerId: string) {
    const workflows: Array<{ jobId: string; workflowId: string; index: number }> = [];
    const grants: Array<{ jobId: string; workerIndex: number }> = [];
    const items = await this.queryAll({
      IndexName: WORKER_INDEX,
      KeyConditionExpression: 'gsiWorkerId = :worker',
      ExpressionAttributeValues: { ':worker': workerId },
    });
    for (const item of items) {
      const jobId = String(item['pk']).slice('JOB#'.length);
      const sk = String(item['sk']);
      if (sk.startsWith(GRANT_PREFIX)) grants.push({ jobId, workerIndex: Number(item['index']) });
      else workflows.push({ jobId, workflowId: sk.slice('WF#'.length), index: Number(item['index']) });
    }
    return { workflows, grants };
  }

  async latestHeardFromWorkflows(workerId: string, except?: WorkflowRef): Promise<EpochMs | undefined> {
    const listed = await this.queryAll({
      IndexName: WORKER_INDEX,
      KeyConditionExpression: 'gsiWorkerId = :worker AND begins_with(pk, :job)',
      ExpressionAttributeValues: { ':worker': workerId, ':job': 'JOB#' },
    });
    const left = except && workflowKey(except.jobId, except.workflowId);
    const keys = listed
      .map((item) => ({ pk: String(item['pk']), sk: String(item['sk']) }))
      .filter((key) => key.sk.startsWith('WF#') && !(key.pk === left?.pk && key.sk === left.sk));
    let latest: EpochMs | undefined;
    for (let start = 0; start < keys.length; start += 100) {
      // The index may lag the table: the times come from the items themselves, read consistently.
      for (const item of await batchGet(this.doc, this.tableName, keys.slice(start, start + 100))) {
        const at = lastHeardAt(asWorkflow(item));
        if (at !== undefined && (latest === undefined || at > latest)) latest = at;
      }
    }
    return latest;
  }

  async leaveWorkerIndex(workflows: ReadonlyArray<{ jobId: string; workflowId: string; incarnation?: string }>): Promise<void> {
    for (const w of workflows) {
      const { Item } = await sendGet(this.doc, { TableName: this.tableName, Key: workflowKey(w.jobId, w.workflowId), ConsistentRead: true });
      const worker = Item?.['gsiWorkerId'];
      const heard = Item ? lastHeardAt(asWorkflow(Item)) : undefined;
      // Before it leaves: once out of the index, its time no longer counts for the worker's health.
      if (typeof worker === 'string' && heard !== undefined) await this.touchWorkerHealth(worker, heard);
      await this.updateIfStillBehind({
        Key: workflowKey(w.jobId, w.workflowId),
        UpdateExpression: 'REMOVE gsiWorkerId',
        ...(w.incarnation === undefined
          ? { ConditionExpression: 'attribute_exists(gsiWorkerId)' }
          : { ConditionExpression: 'attribute_exists(gsiWorkerId) AND incarnation = :incarnation', ExpressionAttributeValues: { ':incarnation': w.incarnation } }),
      });
    }
  }

  /**
   * The worker's index in the job is fixed by the job's first grant: every later grant, late or not,
   * is answered that index. A record of an earlier job with this id is replaced whole, only as read:
   * two first grants racing there (a late retry, or two requests of the worker) each put their own
   * record, and each applied its grant at its own index, so the job held a grant of the worker that
   * no record named, which no failure or fresh budget of the worker retired.
   */
  async recordGrant(record: WorkerGrantRecord): Promise<number> {
    // A replacement refused means this job's first grant was just stored: the next update meets it.
    for (let tries = 1; tries <= GRANT_RECORD_TRIES; tries++) {
      const recorded = await this.updateGrantRecord(record);
      if (recorded !== undefined) return recorded;
      const { Item: stored } = await sendGet(this.doc, { TableName: this.tableName, Key: grantKey(record.jobId, record.workerId), ConsistentRead: true });
      // This job's record already holds a newer grant: it stays, and so does the worker's index.
      if (stored && ofIncarnation(asGrant(stored), record.incarnation)) return Number(stored['workerIndex'] ?? record.workerIndex);
      if (await this.replaceEarlierJobsGrantRecord(record, stored)) return record.workerIndex;
    }
    throw new VersionConflictError(`${grantKey(record.jobId, record.workerId).pk}/${grantKey(record.jobId, record.workerId).sk}`);
  }

  /** The grant set on this job's record; undefined when the record is newer or an earlier job's. */
  private async updateGrantRecord(record: WorkerGrantRecord): Promise<number | undefined> {
    const { workerIndex, ...rest } = record;
    const fields = grantRecordFields(rest);
    const names = Object.keys(fields);
    try {
      const { Attributes } = await sendUpdate(this.doc, {
        TableName: this.tableName,
        Key: grantKey(record.jobId, record.workerId),
        // `index` (= workerIndex) and `gsiWorkerId` put the record in the `byWorker` index: a fresh
        // budget finds every job where the worker holds a grant, active there or not.
        UpdateExpression: `SET workerIndex = if_not_exists(workerIndex, :workerIndex), #index = if_not_exists(#index, :workerIndex), gsiWorkerId = :worker, ${names.map((_, i) => `#f${i} = :f${i}`).join(', ')}`,
        // The worker's index is fixed by this job's first grant, not by an earlier job with this id;
        // and a grant applied late (a retry overtaken by the next grant) never replaces a newer one.
        ConditionExpression: [
          ...(record.incarnation !== undefined ? ['(attribute_not_exists(incarnation) OR incarnation = :incarnation)'] : []),
          '(attribute_not_exists(epoch) OR epoch < :epoch OR (epoch = :epoch AND #count <= :count))',
        ].join(' AND '),
        ExpressionAttributeNames: { '#index': 'index', '#count': 'count', ...Object.fromEntries(names.map((name, i) => [`#f${i}`, name])) },
        ExpressionAttributeValues: {
          ':workerIndex': workerIndex,
          ':worker': record.workerId,
          ':epoch': record.epoch,
          ':count': record.count,
          ...(record.incarnation !== undefined ? { ':incarnation': record.incarnation } : {}),
          ...Object.fromEntries(names.map((name, i) => [`:f${i}`, fields[name]])),
        },
        ReturnValues: 'ALL_NEW',
      });
      return Number(Attributes?.['workerIndex'] ?? workerIndex);
    } catch (error) {
      if (!(error instanceof ConditionalCheckFailedException)) throw error;
      return undefined;
    }
  }

  /**
   * Replaces the record `stored` (an earlier job's, or none) with this job's first, if it is still
   * that one; false when another write came first (this job's first grant, by another caller).
   */
  private async replaceEarlierJobsGrantRecord(record: WorkerGrantRecord, stored: Record<string, unknown> | undefined): Promise<boolean> {
    const { workerIndex, ...rest } = record;
    const earlier = stored?.['incarnation'];
    try {
      await sendPut(this.doc, {
        TableName: this.tableName,
        Item: { ...grantRecordFields(rest), workerIndex, index: workerIndex, gsiWorkerId: record.workerId, ...grantKey(record.jobId, record.workerId) },
        ...(stored === undefined
          ? { ConditionExpression: 'attribute_not_exists(pk)' }
          : { ConditionExpression: 'incarnation = :earlier', ExpressionAttributeValues: { ':earlier': earlier } }),
      });
      return true;
    } catch (error) {
      if (!(error instanceof ConditionalCheckFailedException)) throw error;
      return false;
    }
  }

  async retireGrantRecord(jobId: string, workerId: string, epochBefore: number): Promise<void> {
    await this.updateIfStillBehind({
      Key: grantKey(jobId, workerId),
      UpdateExpression: 'REMOVE gsiWorkerId',
      ConditionExpression: 'attribute_exists(gsiWorkerId) AND epoch < :epochBefore',
      ExpressionAttributeValues: { ':epochBefore': epochBefore },
    });
  }

  async findGrantRecords(jobId: string, incarnation?: string): Promise<WorkerGrantRecord[]> {
    const items = await this.queryAll({
      KeyConditionExpression: 'pk = :pk AND begins_with(sk, :grant)',
      ExpressionAttributeValues: { ':pk': jobKey(jobId).pk, ':grant': GRANT_PREFIX },
      ConsistentRead: true,
    });
    return items.map(asGrant).filter((record) => ofIncarnation(record, incarnation));
  }

  async findGrantRecordsOf(jobId: string, workerIds: readonly string[], incarnation?: string): Promise<WorkerGrantRecord[]> {
    const keys = [...new Set(workerIds)].map((workerId) => grantKey(jobId, workerId));
    const records: WorkerGrantRecord[] = [];
    for (let start = 0; start < keys.length; start += 100) {
      records.push(...(await batchGet(this.doc, this.tableName, keys.slice(start, start + 100))).map(asGrant));
    }
    // A batch answers in no particular order; a query lists them by sort key (UTF-8 bytes).
    const bySortKey = (a: WorkerGrantRecord, b: WorkerGrantRecord) => Buffer.compare(Buffer.from(a.workerId, 'utf8'), Buffer.from(b.workerId, 'utf8'));
    return records.filter((record) => ofIncarnation(record, incarnation)).sort(bySortKey);
  }

  findDueTimers(dueBy: EpochMs, limit: number) {
    return queryDueTimers(this.doc, this.tableName, 'job', dueBy, limit);
  }

  async getWorker(workerId: string): Promise<WorkerHealth | undefined> {
    const { Item } = await sendGet(this.doc, { TableName: this.tableName, Key: workerKey(workerId), ConsistentRead: true });
    return Item ? asWorker(Item) : undefined;
  }

  async getWorkers(workerIds: readonly string[]): Promise<WorkerHealth[]> {
    const workers: WorkerHealth[] = [];
    for (let start = 0; start < workerIds.length; start += 100) {
      const items = await batchGet(this.doc, this.tableName, workerIds.slice(start, start + 100).map(workerKey));
      workers.push(...items.map(asWorker));
    }
    return workers;
  }

  async saveWorker(worker: WorkerHealth, expectedVersion: number): Promise<WorkerHealth> {
    if (expectedVersion === 0) return putVersioned(this.doc, this.tableName, workerKey(worker.workerId), worker, 0);
    // Only the budget and the failure mark: `lastHealthAt` belongs to `touchWorkerHealth`.
    const failed = worker.failedAt !== undefined;
    const writeId = newWriteId();
    try {
      await sendUpdate(this.doc, {
        TableName: this.tableName,
        Key: workerKey(worker.workerId),
        UpdateExpression: `SET budget = :budget, #version = :next, #writeId = :writeId${failed ? ', failedAt = :failedAt' : ' REMOVE failedAt'}`,
        ConditionExpression: '#version = :expected',
        ExpressionAttributeNames: { '#version': 'version', '#writeId': WRITE_ID },
        ExpressionAttributeValues: {
          ':budget': worker.budget,
          ':next': expectedVersion + 1,
          ':expected': expectedVersion,
          ':writeId': writeId,
          ...(failed ? { ':failedAt': worker.failedAt } : {}),
        },
      });
    } catch (error) {
      if (!(error instanceof ConditionalCheckFailedException)) throw error;
      // A budget written by the first try of a write the SDK repeated: granted, not to be decided again.
      if (!(await landedAlready(this.doc, this.tableName, workerKey(worker.workerId), expectedVersion + 1, writeId))) {
        throw new VersionConflictError(`${workerKey(worker.workerId).pk}/WORKER`);
      }
    }
    return { ...worker, version: expectedVersion + 1 };
  }

  async touchWorkerHealth(workerId: string, at: EpochMs): Promise<void> {
    await this.updateIfStillBehind({
      Key: workerKey(workerId),
      UpdateExpression: 'SET lastHealthAt = :at',
      ConditionExpression: 'attribute_exists(pk) AND lastHealthAt < :at',
      ExpressionAttributeValues: { ':at': at },
    });
  }

  /** Every page of a query. */
  private queryAll(input: Omit<QueryCommandInput, 'TableName' | 'ExclusiveStartKey' | 'Limit'>) {
    return queryItems(this.doc, { TableName: this.tableName, ...input });
  }

  /** A monotonic "move forward" update: when the stored value is already newer, there is nothing to do. */
  /** False when the condition found the item already as far along (or gone). */
  private async updateIfStillBehind(input: Omit<UpdateCommandInput, 'TableName'>): Promise<boolean> {
    try {
      await sendUpdate(this.doc, { TableName: this.tableName, ...input });
      return true;
    } catch (error) {
      if (!(error instanceof ConditionalCheckFailedException)) throw error;
      return false;
    }
  }
}
