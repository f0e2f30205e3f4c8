import { effectiveDeadline } from '../../domain/deadlines.js';
import { DEFAULT_TENANT, plainWorkerId } from '../../domain/tenant.js';
import { withWorkflowProgress } from '../../domain/record-progress.js';
import { toIso } from '../../domain/time.js';
import type { HistoryEntry } from '../../domain/history/history-entry.js';
import { belongsTo, type Job } from '../../domain/job.js';
import type { ManagerDeps } from '../manager-deps.js';
import { ownJob } from '../own-job.js';
import { readHistory, timedEntries } from './history-answer.js';

/** `GET /jobs/{jobId}/history` on a region manager: the job's timing as it stands, and its decisions in time order. */
export async function getJobHistory(deps: ManagerDeps, jobId: string, tenant: string = DEFAULT_TENANT) {
  const [stored, read] = await Promise.all([deps.jobs.getJob(jobId), readHistory(deps.history, jobId)]);
  const owned = ownJob(stored, tenant, jobId);
  // Reports write only their workflow: the job's last progress is the latest of theirs (record-progress.ts).
  const job = withWorkflowProgress(owned, await deps.jobs.latestWorkflowProgressAt(jobId, owned.incarnation));
  const recorded = { ...read, entries: await withWorkerIds(deps, owned, read.entries) };
  const t = job.tracking;
  return {
    jobId,
    source: job.region,
    status: job.status,
    strategy: t.strategy,
    ...(t.gateRegion !== undefined ? { gateRegion: t.gateRegion } : {}),
    fenceToken: t.fenceToken,
    stuckThresholdSeconds: t.stuckThresholdSeconds,
    lastProgressAt: toIso(t.lastProgressAt),
    ...timedEntries(
      {
        startedAt: t.startedAt,
        timeoutSeconds: t.timeoutSeconds,
        effectiveDeadlineAt: effectiveDeadline(t),
        ...(t.timeoutReason !== undefined ? { timeoutReason: t.timeoutReason } : {}),
        ...(job.finishedAt !== undefined ? { finishedAt: job.finishedAt } : {}),
      },
      recorded,
      deps.clock.now(),
    ),
  };
}

/**
 * Extension entries name the worker by its index in the job; the answer names it by id, from the
 * job's grant records (one per worker that was granted, beside the job item), not from its
 * workflows, which may be thousands. Only an index no record names (data from before the records)
 * costs the read of the workflows.
 */
async function withWorkerIds(deps: ManagerDeps, job: Job, entries: HistoryEntry[]): Promise<HistoryEntry[]> {
  const wanted = new Set(entries.flatMap((entry) => (entry.kind === 'extension' && entry.workerIndex !== undefined && entry.workerId === undefined ? [entry.workerIndex] : [])));
  if (wanted.size === 0) return entries;
  const records = await deps.jobs.findGrantRecords(job.jobId, job.incarnation);
  const workerIdByIndex = new Map(records.map((record) => [record.workerIndex, plainWorkerId(record.workerId)]));
  if ([...wanted].some((index) => !workerIdByIndex.has(index))) {
    // Workflow items an earlier job with this id left behind are not this job's.
    const workflows = (await deps.jobs.getJobWithWorkflows(job.jobId))?.workflows.filter((w) => belongsTo(w, job)) ?? [];
    for (const w of workflows) if (!workerIdByIndex.has(w.index)) workerIdByIndex.set(w.index, w.workerId);
  }
  return entries.map((entry) =>
    entry.kind === 'extension' && entry.workerIndex !== undefined && entry.workerId === undefined
      ? { ...entry, workerId: workerIdByIndex.get(entry.workerIndex) ?? `worker of workflow #${entry.workerIndex + 1}` }
      : entry,
  );
}
