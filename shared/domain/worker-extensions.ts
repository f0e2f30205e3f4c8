import type { DecisionContext } from './decision-context.js';
import { effectiveDeadline, nextDueAt } from './deadlines.js';
import { unchanged, type Decision } from './effects.js';
import { decodeGrants, encodeGrants, isNotNewer, type WorkerGrant } from './extension-ledger.js';
import { isTerminal, WorkflowMark, type Job, type TimeoutTrackingState } from './job.js';
import { armJobTimer } from './job-timer.js';

function withGrants(tracking: TimeoutTrackingState, grants: ReadonlyMap<number, WorkerGrant>): TimeoutTrackingState {
  const { workerGrants: _previous, ...rest } = tracking;
  const seconds = [...grants.values()].map((g) => g.seconds);
  return {
    ...rest,
    ...(grants.size > 0 ? { workerGrants: encodeGrants(grants) } : {}),
    totalExtensionsGranted: seconds.reduce((sum, s) => sum + s, 0),
    maxWorkerExtension: seconds.reduce((max, s) => Math.max(max, s), 0),
    workersWithExtensions: grants.size,
  };
}

/**
 * A change of the job's deadlines. When it moves the next due time earlier than the armed wake-up
 * (a failed worker's grants retired, a fresh budget's smaller grant replacing an old one), the timer
 * is re-armed: a late wake-up would let the job run past its deadline and the sweep, which reads the
 * same due time, could not help. A later due time keeps the timer: it fires, finds the job not due, re-arms.
 */
function withTracking(job: Job, tracking: TimeoutTrackingState, ctx: DecisionContext): Decision<Job> {
  const next: Job = { ...job, tracking };
  const due = nextDueAt(next, ctx.policy);
  if (job.timerDueAt !== undefined && due < job.timerDueAt) {
    const rearmed = armJobTimer(next, due);
    return { state: rearmed.job, effects: rearmed.effects };
  }
  return { state: next, effects: [] };
}

/** The grants of one worker in this job, as the job stores them (for tests and views). */
export const grantOf = (job: Job, workerIndex: number): WorkerGrant | undefined => decodeGrants(job.tracking.workerGrants).get(workerIndex);

/**
 * Seed 001 §10.4.7: a grant to a worker moves the deadline of a RUNNING job it is active in. The
 * grant replaces the worker's previous one on this job (its seconds are the budget's total), so
 * applying it twice, or an older one late, changes nothing: a request retried after a crash
 * extends each job once. Seed 000 Part 8 item 3: a grant whose progress advanced is progress, so it
 * also resets the job's stuck clock. A job already past its effective deadline is owed its timeout,
 * only waiting for its wake-up: a grant then would let a late wake-up decide whether it ends, so it
 * is refused (its worker's other jobs still take it). So is a grant to a job whose region already
 * reported its timeout to the gate (seed 000 Part 4): that job ends by the gate's word or its fallback.
 */
export function recordWorkerExtension(
  job: Job,
  workerIndexes: readonly number[],
  grant: WorkerGrant,
  progressAdvanced: boolean,
  ctx: DecisionContext,
  /** Grants that no longer count (their worker failed, or has a fresh budget) though the job's wake-up has not yet dropped them. */
  retiredGrants: ReadonlyArray<{ workerIndex: number; epochBefore: number }> = [],
): Decision<Job> {
  if (isTerminal(job.status)) return unchanged(job, 'already_terminal');
  if (ctx.now >= liveEffectiveDeadline(job, retiredGrants)) return unchanged(job, 'deadline_passed');
  // Its region reported its timeout to the gate and waits for the decision or its fallback: no grant undoes that.
  if (job.tracking.locallyTimedOut) return unchanged(job, 'local_timeout_reported');
  if (!workerIndexes.some((index) => job.workflowMarks[index] === WorkflowMark.active)) {
    return unchanged(job, 'worker_has_no_active_workflow');
  }
  const grants = decodeGrants(job.tracking.workerGrants);
  if (isNotNewer(grant, grants.get(grant.workerIndex))) return unchanged(job, 'grant_already_applied');
  grants.set(grant.workerIndex, grant);
  const tracking: TimeoutTrackingState = {
    ...withGrants(job.tracking, grants),
    lastExtensionAt: ctx.now,
    ...(progressAdvanced ? { lastProgressAt: Math.max(job.tracking.lastProgressAt, ctx.now) } : {}),
  };
  return withTracking(job, tracking, ctx);
}

/** The job's effective deadline counting only the grants that still count (a failed worker's do not). */
export const liveEffectiveDeadline = (job: Job, retiredGrants: ReadonlyArray<{ workerIndex: number; epochBefore: number }>): number =>
  effectiveDeadline(withoutGrants(job, retiredGrants).tracking);

/**
 * The grants of these workers from budgets before `epochBefore` stop counting (seed 001 §10.4.9
 * `cleanup_worker_extensions`; AD-26 `reset`): pass `Infinity` for a failed worker.
 */
export function withoutGrants(job: Job, retired: ReadonlyArray<{ workerIndex: number; epochBefore: number }>): Job {
  const grants = decodeGrants(job.tracking.workerGrants);
  let removed = false;
  for (const { workerIndex, epochBefore } of retired) {
    const grant = grants.get(workerIndex);
    if (grant && grant.epoch < epochBefore) removed = grants.delete(workerIndex);
  }
  return removed ? { ...job, tracking: withGrants(job.tracking, grants) } : job;
}

export function retireWorkerGrants(job: Job, workerIndex: number, epochBefore: number, ctx: DecisionContext): Decision<Job> {
  if (isTerminal(job.status)) return unchanged(job, 'already_terminal');
  const next = withoutGrants(job, [{ workerIndex, epochBefore }]);
  return next === job ? unchanged(job, 'no_grants_to_retire') : withTracking(job, next.tracking, ctx);
}
