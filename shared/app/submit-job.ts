import { createHash, randomUUID } from 'node:crypto';
import { SubmissionConflictError } from '../domain/errors.js';
import { belongsTo } from '../domain/job.js';
import { startJob, type JobSubmission } from '../domain/submit-job.js';
import { DEFAULT_TENANT } from '../domain/tenant.js';
import { jobListing } from '../domain/history/job-listing.js';
import { runEffects } from './effect-runner.js';
import { recordListing } from './history/record-history.js';
import { submittedJobView } from './job-views.js';
import { decisionContext, type ManagerDeps } from './manager-deps.js';
import { newIncarnation } from './workflow-tokens.js';

export type SubmitInput = Omit<JobSubmission, 'jobId'> & { jobId?: string };

/** Canonical digest of what makes two submissions the same (the idempotency check). */
function submissionDigest(submission: SubmitInput): string {
  const canonical = JSON.stringify([
    submission.timeoutSeconds,
    submission.stuckThresholdSeconds ?? null,
    submission.gateRegion ?? null,
    submission.workflows.map((w) => [w.workflowId, w.workerId]),
    // Another tenant sending the same body for the same jobId is a conflict, never its tokens.
    ...(submission.tenant !== undefined && submission.tenant !== DEFAULT_TENANT ? [submission.tenant] : []),
  ]);
  return createHash('sha256').update(canonical).digest('hex');
}

/** Submit, idempotent on `jobId`: the same body again answers the stored job; another body is a conflict. */
export async function submitJob(deps: ManagerDeps, input: SubmitInput) {
  const digest = submissionDigest(input);
  const jobId = input.jobId ?? randomUUID();
  const started = startJob({ ...input, jobId }, digest, deps.region, decisionContext(deps), newIncarnation());
  const result = await deps.jobs.createJob(started.job, started.workflows);
  if (!result.created) {
    if (result.existing.submissionDigest !== digest) throw new SubmissionConflictError(jobId);
    // A submit that crashed after the job item may have left workflows unwritten: add only those.
    const stored = await deps.jobs.getJobWithWorkflows(jobId);
    if (!stored) throw new Error(`job ${jobId} vanished after it was found`);
    // Items of an earlier job with this id (expired) do not count as present: they are rewritten.
    const present = new Set(stored.workflows.filter((w) => belongsTo(w, stored.job)).map((w) => w.workflowId));
    const { incarnation } = stored.job;
    const missing = started.workflows.filter((w) => !present.has(w.workflowId)).map((w) => ({ ...w, incarnation }));
    if (missing.length > 0) await deps.jobs.putWorkflows(missing);
    await recordListing(deps.history, deps.telemetry, jobListing(stored.job));
    return { created: false, view: submittedJobView(stored.job, started.workflows, deps.tokens), startedAt: stored.job.tracking.startedAt };
  }
  await runEffects(deps, started.effects);
  await recordListing(deps.history, deps.telemetry, jobListing(result.job));
  deps.telemetry.info('job submitted', {
    jobId,
    region: deps.region,
    fenceToken: result.job.tracking.fenceToken,
    strategy: result.job.tracking.strategy,
    workflows: started.workflows.length,
  });
  return { created: true, view: submittedJobView(result.job, started.workflows, deps.tokens), startedAt: result.job.tracking.startedAt };
}
