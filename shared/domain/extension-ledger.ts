/**
 * What one worker currently adds to one job's deadline: the newest grant of its budget that reached
 * the job. A grant replaces the previous one (its `seconds` is the budget's running total), so a
 * worker's contribution to a job is never more than one budget's worth (AD-26: ≤ 58.125 s).
 */
export interface WorkerGrant {
  /**
   * Names the worker inside the job: the index of the worker's workflow that its first grant on the
   * job went through, fixed from then on by the grant record (`WorkerGrantRecord`).
   */
  workerIndex: number;
  /** The budget the grant came from, and its number in that budget: (epoch, count) names it once. */
  epoch: number;
  count: number;
  /** The budget's total when this grant was made. */
  seconds: number;
}

/**
 * The job item stores its grants as one compact string (`index.epoch.count.ms`, base 36, comma
 * separated) rather than a map keyed by worker id: a 10,000-workflow job whose every worker extended
 * stays near 180 KB with epochs below 36^6, whatever the ids, far from DynamoDB's 400 KB item limit.
 */
export type EncodedGrants = string;

const SEPARATOR = ',';

export function decodeGrants(encoded: EncodedGrants | undefined): Map<number, WorkerGrant> {
  const grants = new Map<number, WorkerGrant>();
  if (!encoded) return grants;
  for (const entry of encoded.split(SEPARATOR)) {
    const [index, epoch, count, ms] = entry.split('.').map((part) => parseInt(part, 36));
    if (index === undefined || epoch === undefined || count === undefined || ms === undefined) continue;
    grants.set(index, { workerIndex: index, epoch, count, seconds: ms / 1000 });
  }
  return grants;
}

export function encodeGrants(grants: ReadonlyMap<number, WorkerGrant>): EncodedGrants {
  return [...grants.values()]
    .map((g) => [g.workerIndex, g.epoch, g.count, Math.round(g.seconds * 1000)].map((n) => n.toString(36)).join('.'))
    .join(SEPARATOR);
}

/** Whether `grant` is the same as or older than `applied` (a retried request, or a late one). */
export const isNotNewer = (grant: Pick<WorkerGrant, 'epoch' | 'count'>, applied: WorkerGrant | undefined): boolean =>
  applied !== undefined && (grant.epoch < applied.epoch || (grant.epoch === applied.epoch && grant.count <= applied.count));

/**
 * The (job, worker) record beside the job item: which worker a grant's index names, and what the
 * worker said when it asked (AD-26 `estimated_completion`, `active_workflow_count`), for the job's view
 * and for the timer's check of grants whose worker failed or got a fresh budget since.
 */
export interface WorkerGrantRecord extends WorkerGrant {
  jobId: string;
  /** The job's incarnation: a record left by an earlier job with this id (a reused id) is not this job's. */
  incarnation?: string;
  workerId: string;
  grantedAt: number;
  estimatedCompletion?: string;
  activeWorkflowCount?: number;
  /** No job is running by then (`latestEndAt`): the record expires some time after it. */
  retainUntil?: number;
}
