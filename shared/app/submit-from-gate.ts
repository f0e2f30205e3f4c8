import type { SubmitFromGateBody } from '../contract/manager-requests.js';
import { toIso } from '../domain/time.js';
import type { ManagerDeps } from './manager-deps.js';
import { submitJob } from './submit-job.js';

/**
 * A region's answer to the gate's fan-out: the submit answer, plus `startedAt`, when this region
 * started the job. The gate counts the region's deadline from it (global-deadline.ts); the answer's
 * `deadlineAt` cannot stand in for it, since on a resend it already holds the grants made since,
 * which the gate adds again from the region's reports.
 */
export async function submitFromGate(deps: ManagerDeps, submission: SubmitFromGateBody) {
  const { created, view, startedAt } = await submitJob(deps, submission);
  return { created, body: { ...view, startedAt: toIso(startedAt) } };
}
