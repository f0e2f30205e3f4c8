import type { ExtensionPolicy } from './policy.js';

/**
 * AD-26: one worker's extension budget. A fresh one (AD-26 `reset`) when the worker was failed and
 * is back, and when it has completed its work; never on "suspect → healthy" (see `worker-health.ts`).
 */
export interface ExtensionBudget {
  /** Which budget this is: goes up by one at each reset, so (epoch, count) names every grant once. */
  epoch: number;
  count: number;
  lastProgress: number;
  /**
   * The job whose progress `lastProgress` is (its id, with `@` and its incarnation when it has one):
   * `currentProgress` is the progress of the job named by the request's token, so the "no progress"
   * rule compares it within that job only.
   */
  lastProgressJobId?: string;
  /**
   * The progress each job (keyed as `lastProgressJobId`) showed at this budget's grants (one entry per grant at most): a worker
   * alternating its jobs' tokens must still show progress within the job it names to be granted again.
   */
  progressByJob?: Record<string, number>;
  totalSeconds: number;
  /**
   * The requests this budget granted that named themselves (`requestId`), the latest
   * `REMEMBERED_GRANTS`, with each one's seconds: a request sent again after its answer was lost
   * is answered with its grant, not decided again (where it would read as asking twice).
   */
  grantedRequests?: GrantedRequest[];
}

export interface GrantedRequest {
  requestId: string;
  seconds: number;
}

/**
 * Grants remembered by request id. A budget makes at most `maxExtensions` grants (5), so this keeps
 * every one of them while bounding the worker item (a 128-character id each: under 2.5 KB).
 */
export const REMEMBERED_GRANTS = 16;

/** The grant this budget made to the request named `requestId`, if it made one (and still remembers it). */
export const grantOfRequest = (budget: ExtensionBudget, requestId: string | undefined): GrantedRequest | undefined =>
  requestId === undefined ? undefined : budget.grantedRequests?.find((granted) => granted.requestId === requestId);

export const freshBudget = (epoch = 0): ExtensionBudget => ({ epoch, count: 0, lastProgress: 0, totalSeconds: 0 });

/**
 * A fresh budget, unless this one is untouched and no job holds a grant it has not counted (then it
 * already is one and no grant needs retiring). `uncountedGrants`: a request that put its grant on
 * the jobs and crashed before writing the budget left one (a review finding).
 */
export const resetBudget = (budget: ExtensionBudget, uncountedGrants = false): ExtensionBudget =>
  budget.count === 0 && !uncountedGrants ? budget : freshBudget(budget.epoch + 1);

/** The identity of a grant: the budget it came from and its number in that budget. */
export interface GrantId {
  epoch: number;
  count: number;
}

/**
 * AD-26: `max(minGrant, base / 2^count)`. The formula governs over the seed's table, whose
 * fifth row says 1.0 s: 30 / 2^4 = 1.875 s, which is above the 1 s floor.
 */
export const grantSeconds = (count: number, policy: ExtensionPolicy): number =>
  Math.max(policy.minGrantSeconds, policy.baseSeconds / 2 ** count);

export const remainingExtensions = (budget: ExtensionBudget, policy: ExtensionPolicy): number =>
  Math.max(0, policy.maxExtensions - budget.count);

export type ExtensionOutcome =
  /** `progressAdvanced`: the request shows progress of its job (seed 000 Part 8 item 3: that is progress). */
  | { granted: true; seconds: number; budget: ExtensionBudget; progressAdvanced: boolean }
  | { granted: false; denialReason: string };

export interface ExtensionAsk {
  currentProgress: number;
  /** The job the request's token names: the job whose progress `currentProgress` is. */
  jobId: string;
  /** That job's incarnation: a job submitted again with the same id is another job, whose progress starts over. */
  incarnation?: string;
  /** That job has ended: its progress cannot show the worker is still getting somewhere. */
  jobEnded?: boolean;
  /** The token's workflow has reported its outcome: the worker is done with it, as its progress route says (409). */
  workflowFinished?: { workflowId: string };
  /** That job is past its effective deadline, or its region reported it timed out or stuck to the gate: it is owed its timeout, which no grant may undo. */
  jobBeingTimedOut?: boolean;
  /** The worker's name for this request: the same in every repeat of it (`grantOfRequest`). */
  requestId?: string;
}

export function requestExtension(
  budget: ExtensionBudget,
  ask: ExtensionAsk,
  workerIsSuspect: boolean,
  policy: ExtensionPolicy,
): ExtensionOutcome {
  const { currentProgress } = ask;
  const job = ask.incarnation === undefined ? ask.jobId : `${ask.jobId}@${ask.incarnation}`;
  // A budget stored before progress was keyed by incarnation names the job by its id alone: read as this job's, it can only deny.
  const sameJob = (key: string | undefined) => key === undefined || key === job || key === ask.jobId;
  const previous = budget.progressByJob?.[job] ?? budget.progressByJob?.[ask.jobId] ?? (sameJob(budget.lastProgressJobId) ? budget.lastProgress : 0);
  if (workerIsSuspect) {
    return {
      granted: false,
      denialReason: 'Worker is suspect: it missed its health deadline. Send a progress report to recover first.',
    };
  }
  if (budget.count >= policy.maxExtensions) {
    return { granted: false, denialReason: `Maximum extensions (${policy.maxExtensions}) exceeded for this worker.` };
  }
  if (ask.jobEnded) {
    return { granted: false, denialReason: `Job '${ask.jobId}' of this token has ended; ask with the token of a workflow of a running job.` };
  }
  if (ask.workflowFinished) {
    return {
      granted: false,
      denialReason: `Workflow '${ask.workflowFinished.workflowId}' of this token has reported its outcome; ask with the token of a workflow still running.`,
    };
  }
  if (ask.jobBeingTimedOut) {
    return {
      granted: false,
      denialReason: `Job '${ask.jobId}' of this token is being timed out (past its deadline, or reported stuck or timed out to the gate); an extension must be asked for before that.`,
    };
  }
  if (budget.count > 0 && currentProgress <= previous) {
    return {
      granted: false,
      denialReason: `No progress since last extension (was ${previous}, now ${currentProgress}).`,
    };
  }
  const seconds = grantSeconds(budget.count, policy);
  return {
    granted: true,
    seconds,
    progressAdvanced: currentProgress > previous,
    budget: {
      epoch: budget.epoch,
      count: budget.count + 1,
      lastProgress: currentProgress,
      lastProgressJobId: job,
      progressByJob: { ...budget.progressByJob, [job]: currentProgress },
      totalSeconds: budget.totalSeconds + seconds,
      ...(ask.requestId !== undefined
        ? { grantedRequests: [...(budget.grantedRequests ?? []), { requestId: ask.requestId, seconds }].slice(-REMEMBERED_GRANTS) }
        : budget.grantedRequests
          ? { grantedRequests: budget.grantedRequests }
          : {}),
    },
  };
}

/** The most one budget can add to a job: every grant of the halving series (58.125 s by default). */
export function budgetCapSeconds(policy: ExtensionPolicy): number {
  let total = 0;
  for (let count = 0; count < policy.maxExtensions; count++) total += grantSeconds(count, policy);
  return total;
}
