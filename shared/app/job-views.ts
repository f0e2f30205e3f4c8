import { effectiveDeadline } from '../domain/deadlines.js';
import { decodeGrants, type WorkerGrantRecord } from '../domain/extension-ledger.js';
import { plainWorkerId } from '../domain/tenant.js';
import { workflowState, type Job, type Workflow } from '../domain/job.js';
import { stuckWorkflows } from '../domain/stuck-workflows.js';
import { toIso, type EpochMs } from '../domain/time.js';
import type { WorkflowTokens } from './workflow-tokens.js';
import { latestAdvanceAt, withWorkflowProgress } from '../domain/record-progress.js';

/** Each worker's grant the job holds, with what it said when it asked (AD-26); a failed worker's until the wake-up drops it. */
function workerExtensions(job: Job, records: readonly WorkerGrantRecord[]) {
  const grants = decodeGrants(job.tracking.workerGrants);
  return records.flatMap((record) => {
    const grant = grants.get(record.workerIndex);
    if (!grant) return [];
    return [
      {
        workerId: plainWorkerId(record.workerId),
        extensionSeconds: grant.seconds,
        extensionsGranted: grant.count,
        ...(record.epoch === grant.epoch && record.count === grant.count
          ? {
              grantedAt: toIso(record.grantedAt),
              ...(record.estimatedCompletion !== undefined ? { estimatedCompletion: record.estimatedCompletion } : {}),
              ...(record.activeWorkflowCount !== undefined ? { activeWorkflowCount: record.activeWorkflowCount } : {}),
            }
          : {}),
      },
    ];
  });
}

/**
 * The latest advance the job's state answers for. A report reads the job, then writes its workflow
 * alone: its advance can land after the job ended. A finished job shows the progress its end could
 * have seen: a stuck verdict the clock its decision folded in (stored on the job), any other end
 * the advances up to its own instant.
 */
function advanceSeenBy(job: Job, workflows: readonly Workflow[]): EpochMs | undefined {
  if (job.finishedAt === undefined) return latestAdvanceAt(job, workflows);
  if (job.status === 'TIMED_OUT' && job.tracking.timeoutReason === 'stuck') return undefined;
  const finishedAt = job.finishedAt;
  return latestAdvanceAt(job, workflows.filter((w) => w.lastProgressAt === undefined || w.lastProgressAt <= finishedAt));
}

/**
 * Workflows per job answer. At 128-character ids and steps one workflow's entry, with its worker's
 * extension, is about 900 bytes: a page stays near 1 MB, far below Lambda's 6 MB, at any job size.
 */
export const JOB_VIEW_PAGE_SIZE = 1_000;

/** The workflows one job answer lists: a page of those after position `afterIndex`; `more` when others follow. */
export function jobViewPage(workflows: readonly Workflow[], afterIndex = -1): { page: Workflow[]; more: boolean } {
  const after = workflows.filter((w) => w.index > afterIndex);
  return { page: after.slice(0, JOB_VIEW_PAGE_SIZE), more: after.length > JOB_VIEW_PAGE_SIZE };
}

/**
 * The job answer of GET /jobs/{jobId}?cursor= (docs/api.md): the job, and one page of its workflows in
 * submission order (those after position `afterIndex`) with the extensions of their workers; the
 * job's fields are the whole job's.
 */
export function jobView(job: Job, workflows: readonly Workflow[], now: EpochMs, grantRecords: readonly WorkerGrantRecord[] = [], afterIndex = -1) {
  // Reports write only their workflow: the job's last progress is the latest of theirs (record-progress.ts).
  const t = withWorkflowProgress(job, advanceSeenBy(job, workflows)).tracking;
  const stuck = new Set(stuckWorkflows(job, workflows, now).map((w) => w.workflowId));
  const { page, more } = jobViewPage(workflows, afterIndex);
  const pageWorkers = new Set(page.map((w) => plainWorkerId(w.workerId)));
  return {
    jobId: job.jobId,
    region: job.region,
    status: job.status,
    strategy: t.strategy,
    ...(t.gateRegion !== undefined ? { gateRegion: t.gateRegion } : {}),
    fenceToken: t.fenceToken,
    ...(t.timeoutReason !== undefined && job.status !== 'RUNNING' ? { timeoutReason: t.timeoutReason } : {}),
    ...(job.cancelReason !== undefined ? { cancelReason: job.cancelReason } : {}),
    deadlineAt: toIso(effectiveDeadline(t)),
    ...(job.finishedAt !== undefined ? { finishedAt: toIso(job.finishedAt) } : {}),
    timeoutTracking: {
      startedAt: toIso(t.startedAt),
      lastProgressAt: toIso(t.lastProgressAt),
      timeoutSeconds: t.timeoutSeconds,
      stuckThresholdSeconds: t.stuckThresholdSeconds,
      totalExtensionsGranted: t.totalExtensionsGranted,
      workersWithExtensions: t.workersWithExtensions,
      workerExtensions: workerExtensions(job, grantRecords.filter((record) => pageWorkers.has(plainWorkerId(record.workerId)))),
      effectiveDeadlineAt: toIso(effectiveDeadline(t)),
      locallyTimedOut: t.locallyTimedOut,
      globallyTimedOut: t.globallyTimedOut,
    },
    workflows: page.map((w) => ({
      workflowId: w.workflowId,
      workerId: w.workerId,
      state: workflowState(job, w),
      // Before its first progress, the moment its stuck clock runs from: the job's start.
      lastProgressAt: toIso(w.lastProgressAt ?? t.startedAt),
      ...(w.lastHeartbeatAt !== undefined ? { lastHeartbeatAt: toIso(w.lastHeartbeatAt) } : {}),
      ...(w.progress !== undefined ? { progress: w.progress } : {}),
      ...(w.step !== undefined ? { step: w.step } : {}),
      stuck: stuck.has(w.workflowId),
    })),
    ...(more ? { nextCursor: String(page.at(-1)?.index) } : {}),
  };
}

/**
 * Tokens per answer. At the largest ids (128 characters) and the longest tenant (`MAX_TENANT_LENGTH`),
 * which every token carries, one workflow's entry is about 1.6 KB, so a page stays under 1.6 MB: a
 * region's answer fits Lambda's 6 MB. The gate relays of each region what fits its share
 * (`GATE_TOKENS_BUDGET_BYTES`).
 */
export const TOKEN_PAGE_SIZE = 1_000;

export interface TokenPage {
  workflows: Array<{ workflowId: string; workerId: string; token: string }>;
  /** Present when more tokens follow: pass it to `GET /jobs/{jobId}/tokens?cursor=`. */
  nextCursor?: string;
}

/** One page of worker tokens; `more` says whether workflows after the last one exist. */
export function tokenPage(job: Job, workflows: readonly Workflow[], tokens: WorkflowTokens, more: boolean): TokenPage {
  const last = workflows.at(-1);
  return {
    workflows: workflows.map((w) => ({ workflowId: w.workflowId, workerId: w.workerId, token: tokens.sign(job.jobId, w.workflowId, w.workerId, job.incarnation, job.tenant) })),
    ...(more && last ? { nextCursor: last.workflowId } : {}),
  };
}

/**
 * The submit answer: the workflows with their worker tokens. Up to a page, all of them in submission
 * order; beyond, the first page in workflow-id order (the order the tokens route pages in) and a cursor.
 */
export function submittedJobView(job: Job, workflows: readonly Workflow[], tokens: WorkflowTokens) {
  const paged = workflows.length > TOKEN_PAGE_SIZE;
  const first = paged ? [...workflows].sort(byWorkflowId).slice(0, TOKEN_PAGE_SIZE) : workflows;
  return {
    jobId: job.jobId,
    status: job.status,
    strategy: job.tracking.strategy,
    fenceToken: job.tracking.fenceToken,
    deadlineAt: toIso(effectiveDeadline(job.tracking)),
    ...tokenPage(job, first, tokens, paged),
  };
}

/** Ids are ASCII, so this is also DynamoDB's sort-key order. */
const byWorkflowId = (a: Workflow, b: Workflow): number => (a.workflowId < b.workflowId ? -1 : a.workflowId > b.workflowId ? 1 : 0);
