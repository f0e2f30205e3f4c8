import { ConditionalCheckFailedException } from '@aws-sdk/client-dynamodb';
import type { DynamoDBDocumentClient, UpdateCommandInput } from '@aws-sdk/lib-dynamodb';
import { sendUpdate } from './document-calls.js';
import type { Workflow } from '../../domain/job.js';
import type { WorkflowAdvance } from '../../domain/record-progress.js';
import type { EpochMs } from '../../domain/time.js';
import type { ReportedWorkflowFields } from '../../ports/job-store.js';

export const workflowKey = (jobId: string, workflowId: string) => ({ pk: `JOB#${jobId}`, sk: `WF#${workflowId}` });

type ReportedField = keyof ReportedWorkflowFields;

/** What a report's write sets: its advance with the clock, or the heartbeat alone. */
const writtenBy = (at: EpochMs, advance: WorkflowAdvance | undefined): ReportedWorkflowFields =>
  advance ? { lastHeartbeatAt: at, lastProgressAt: at, ...advance } : { lastHeartbeatAt: at };

/**
 * A progress report's writes of its workflow item: each conditional on being an advance (or a later
 * heartbeat), each answering what it replaced, so the report can take back exactly its own write.
 */
export class WorkflowReportWrites {
  constructor(
    private readonly doc: DynamoDBDocumentClient,
    private readonly tableName: string,
  ) {}

  async advance(jobId: string, workflowId: string, at: EpochMs, advance: WorkflowAdvance): Promise<ReportedWorkflowFields | undefined> {
    const whole = await this.writeAdvance(jobId, workflowId, at, advance);
    if (whole) return whole;
    // A concurrent report took one part first (the same step, or a higher progress): the other part
    // still advances on its own, and must not be lost with it.
    const { progress, step } = advance;
    if (progress === undefined || step === undefined) return undefined;
    const parts = await Promise.all([this.writeAdvance(jobId, workflowId, at, { progress }), this.writeAdvance(jobId, workflowId, at, { step })]);
    return mergeReplaced(writtenBy(at, advance), parts);
  }

  async heartbeat(jobId: string, workflowId: string, at: EpochMs): Promise<ReportedWorkflowFields | undefined> {
    return this.replacing(['lastHeartbeatAt'], {
      Key: workflowKey(jobId, workflowId),
      UpdateExpression: 'SET lastHeartbeatAt = :at',
      ConditionExpression: 'attribute_exists(pk) AND (attribute_not_exists(lastHeartbeatAt) OR lastHeartbeatAt < :at)',
      ExpressionAttributeValues: { ':at': at },
    });
  }

  async withdraw(workflow: Pick<Workflow, 'jobId' | 'workflowId' | 'incarnation'>, at: EpochMs, advance: WorkflowAdvance | undefined, restore: ReportedWorkflowFields): Promise<void> {
    const written = writtenBy(at, advance);
    const fields = Object.keys(written) as ReportedField[];
    const names = Object.fromEntries(fields.map((field, i) => [`#f${i}`, field]));
    const values: Record<string, unknown> = { ':incarnation': workflow.incarnation };
    const sets: string[] = [];
    const removes: string[] = [];
    fields.forEach((field, i) => {
      values[`:w${i}`] = written[field];
      const back = restore[field];
      if (back === undefined) removes.push(`#f${i}`);
      else {
        values[`:b${i}`] = back;
        sets.push(`#f${i} = :b${i}`);
      }
    });
    // Refused (the item no longer holds exactly this write): nothing to take back.
    await this.replacing([], {
      Key: workflowKey(workflow.jobId, workflow.workflowId),
      UpdateExpression: [sets.length > 0 ? `SET ${sets.join(', ')}` : '', removes.length > 0 ? `REMOVE ${removes.join(', ')}` : ''].join(' ').trim(),
      ConditionExpression: ['incarnation = :incarnation', ...fields.map((_, i) => `#f${i} = :w${i}`)].join(' AND '),
      ExpressionAttributeNames: names,
      ExpressionAttributeValues: values,
    });
  }

  /** One conditional write of an advance, with its clock; undefined when a concurrent report made it no longer an advance. */
  private async writeAdvance(jobId: string, workflowId: string, at: EpochMs, advance: WorkflowAdvance): Promise<ReportedWorkflowFields | undefined> {
    const sets = ['lastProgressAt = :at', 'lastHeartbeatAt = :at'];
    const conditions = ['attribute_exists(pk)', '(attribute_not_exists(lastProgressAt) OR lastProgressAt <= :at)'];
    const values: Record<string, unknown> = { ':at': at };
    const names: Record<string, string> = {};
    if (advance.progress !== undefined) {
      sets.push('#progress = :progress');
      conditions.push('(attribute_not_exists(#progress) OR #progress < :progress)');
      names['#progress'] = 'progress';
      values[':progress'] = advance.progress;
    }
    if (advance.step !== undefined) {
      sets.push('#step = :step');
      conditions.push('(attribute_not_exists(#step) OR #step <> :step)');
      names['#step'] = 'step';
      values[':step'] = advance.step;
    }
    return this.replacing(Object.keys(writtenBy(at, advance)) as ReportedField[], {
      Key: workflowKey(jobId, workflowId),
      UpdateExpression: `SET ${sets.join(', ')}`,
      ConditionExpression: conditions.join(' AND '),
      ExpressionAttributeValues: values,
      ...(Object.keys(names).length > 0 ? { ExpressionAttributeNames: names } : {}),
    });
  }

  /** The conditional update; what `fields` held before it (none asked: an empty answer), or undefined when its condition refused it. */
  private async replacing(fields: readonly ReportedField[], input: Omit<UpdateCommandInput, 'TableName'>): Promise<ReportedWorkflowFields | undefined> {
    try {
      const { Attributes } = await sendUpdate(this.doc, { TableName: this.tableName, ...input, ...(fields.length > 0 ? { ReturnValues: 'ALL_OLD' } : {}) });
      return Object.fromEntries(fields.map((field) => [field, Attributes?.[field]])) as ReportedWorkflowFields;
    } catch (error) {
      if (!(error instanceof ConditionalCheckFailedException)) throw error;
      return undefined;
    }
  }
}

/**
 * What the two halves of a split advance replaced, as one write: each field's value before the first
 * half that landed. A half that landed second found the first's value (this report's own) there.
 */
function mergeReplaced(written: ReportedWorkflowFields, parts: ReadonlyArray<ReportedWorkflowFields | undefined>): ReportedWorkflowFields | undefined {
  const landed = parts.filter((part): part is ReportedWorkflowFields => part !== undefined);
  if (landed.length === 0) return undefined;
  const fields = Object.keys(written) as ReportedField[];
  return Object.fromEntries(
    fields.map((field) => {
      const before = landed.find((part) => field in part && part[field] !== written[field]);
      return [field, before ? before[field] : written[field]];
    }),
  ) as ReportedWorkflowFields;
}
