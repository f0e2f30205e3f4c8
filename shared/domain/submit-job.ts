import type { DecisionContext } from './decision-context.js';
import type { Effect } from './effects.js';
import { latestEndAt, nextDueAt } from './deadlines.js';
import { WorkflowMark, type Job, type Workflow } from './job.js';
import { armJobTimer } from './job-timer.js';
import { DEFAULT_TENANT } from './tenant.js';
import { MAX_DURATION_SECONDS, storableSeconds } from './time.js';

export interface JobSubmission {
  jobId: string;
  timeoutSeconds: number;
  stuckThresholdSeconds?: number;
  /** Present when the gate submitted the job: gate-coordinated. Absent: local authority (seed 000 Part 1). */
  gateRegion?: string;
  workflows: ReadonlyArray<{ workflowId: string; workerId: string }>;
  /** The submitter; absent or `default` for the default tenant. */
  tenant?: string;
}

export function startJob(
  submission: JobSubmission,
  submissionDigest: string,
  region: string,
  ctx: DecisionContext,
  incarnation: string,
): { job: Job; workflows: Workflow[]; effects: Effect[] } {
  const { now } = ctx;
  const tenant = submission.tenant === DEFAULT_TENANT ? undefined : submission.tenant;
  const job: Job = {
    jobId: submission.jobId,
    region,
    ...(tenant !== undefined ? { tenant } : {}),
    status: 'RUNNING',
    version: 0,
    submissionDigest,
    incarnation,
    createdAt: now,
    tracking: {
      strategy: submission.gateRegion === undefined ? 'local_authority' : 'gate_coordinated',
      ...(submission.gateRegion !== undefined ? { gateRegion: submission.gateRegion } : {}),
      startedAt: now,
      lastProgressAt: now,
      lastReportAt: now,
      timeoutSeconds: storableSeconds(submission.timeoutSeconds),
      // No default gives a job a threshold it could not name itself (its stuck deadline would leave the
      // Date range): `npm start` and the deployment refuse one, a policy built in code is held to it here.
      stuckThresholdSeconds: submission.stuckThresholdSeconds !== undefined ? storableSeconds(submission.stuckThresholdSeconds) : Math.min(ctx.policy.defaultStuckThresholdSeconds, MAX_DURATION_SECONDS),
      totalExtensionsGranted: 0,
      maxWorkerExtension: 0,
      lastExtensionAt: 0,
      workersWithExtensions: 0,
      locallyTimedOut: false,
      globallyTimedOut: false,
      fenceToken: 1,
    },
    workflowMarks: WorkflowMark.active.repeat(submission.workflows.length),
  };
  const retainUntil = latestEndAt(job, new Set(submission.workflows.map((w) => w.workerId)).size, ctx.policy);
  const workflows = submission.workflows.map(
    (w, index): Workflow => ({
      jobId: job.jobId,
      workflowId: w.workflowId,
      workerId: w.workerId,
      index,
      incarnation,
      ...(tenant !== undefined ? { tenant } : {}),
      retainUntil,
    }),
  );
  const armed = armJobTimer(job, nextDueAt(job, ctx.policy));
  return { job: armed.job, workflows, effects: armed.effects };
}
