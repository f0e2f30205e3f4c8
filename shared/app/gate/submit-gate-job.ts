import { createHash, randomUUID } from 'node:crypto';
import { RegionRefusedError, SubmissionConflictError, UnknownRegionError, UpstreamUnavailableError } from '../../domain/errors.js';
import { cancelAfterRefusal, markRegionSubmitFailed, markRegionSubmitted } from '../../domain/gate/region-submission.js';
import type { GateJob } from '../../domain/gate/gate-job.js';
import { startGateJob } from '../../domain/gate/start-gate-job.js';
import { DEFAULT_TENANT, storedTenant } from '../../domain/tenant.js';
import { boundedNames } from '../../contract/bounded-problems.js';
import type { GateSubmitJobBody } from '../../contract/gate-requests.js';
import type { RegionSubmitResult } from '../../ports/region-managers.js';
import { gateJobListing } from '../../domain/history/job-listing.js';
import { runEffects } from '../effect-runner.js';
import { recordListing } from '../history/record-history.js';
import { decideGateJob } from './decide-gate-job.js';
import type { GateDeps } from './gate-deps.js';

function submissionDigest(body: GateSubmitJobBody, tenant: string): string {
  const regions = Object.entries(body.datacenters)
    .sort(([a], [b]) => a.localeCompare(b))
    .map(([region, dc]) => [region, dc.workflows.map((w) => [w.workflowId, w.workerId])]);
  return createHash('sha256').update(JSON.stringify([body.timeoutSeconds, body.stuckThresholdSeconds ?? null, regions, ...(tenant !== DEFAULT_TENANT ? [tenant] : [])])).digest('hex');
}

/**
 * What the gate's answer holds of the regions' tokens, shared among the regions: with the rest of
 * the answer and the proxy envelope's escaping, it stays within the 6 MB a Lambda answer may hold
 * however many regions a job spans, and however long the tenant every token carries.
 */
export const GATE_TOKENS_BUDGET_BYTES = 4 * 1024 * 1024;

type RegionTokenEntry = { workflowId: string; workerId: string; token: string };
const byWorkflowId = (a: RegionTokenEntry, b: RegionTokenEntry) => (a.workflowId < b.workflowId ? -1 : a.workflowId > b.workflowId ? 1 : 0);

/**
 * A region's first tokens, as many as fit the region's share of the budget, and a cursor when more
 * follow: the rest comes from the region's `GET /jobs/{jobId}/tokens?cursor=`, which pages in
 * workflow-id order, so a cut list is cut in that order.
 */
function regionTokens(answer: RegionSubmitResult, budgetBytes: number) {
  if (answer.outcome !== 'accepted') return { workflows: [] };
  const { workflows, nextCursor } = answer.body;
  if (Buffer.byteLength(JSON.stringify(workflows)) <= budgetBytes) return { workflows, ...(nextCursor !== undefined ? { nextCursor } : {}) };
  const ordered = [...workflows].sort(byWorkflowId);
  const kept: RegionTokenEntry[] = [];
  for (let bytes = 2; kept.length < ordered.length; ) {
    const entry = ordered[kept.length] as RegionTokenEntry;
    bytes += Buffer.byteLength(JSON.stringify(entry)) + 1;
    if (bytes > budgetBytes && kept.length > 0) break;
    kept.push(entry);
  }
  return { workflows: kept, nextCursor: (kept.at(-1) as RegionTokenEntry).workflowId };
}

/**
 * Gate submit (seed 000 Part 1, multi-DC): record the job, then submit it to every named region
 * with `gateRegion` set. Idempotent on `jobId` end to end, so a partial failure is fixed by resending.
 */
export async function submitGateJob(deps: GateDeps, body: GateSubmitJobBody, tenant: string = DEFAULT_TENANT) {
  const unknown = Object.keys(body.datacenters).filter((region) => !deps.regions.regions.includes(region));
  if (unknown.length > 0) {
    throw new UnknownRegionError(
      `Unknown region(s) under datacenters: ${boundedNames(unknown)}. This gate runs ${deps.regions.regions.join(', ')}.`,
    );
  }
  const jobId = body.jobId ?? randomUUID();
  const digest = submissionDigest(body, tenant);
  const started = startGateJob({ jobId, timeoutSeconds: body.timeoutSeconds, datacenters: body.datacenters, tenant }, digest, deps.clock.now(), deps.policy);
  const result = await deps.gates.create(started.state);
  if (result.created) await runEffects(deps, started.effects);
  else if (result.existing.submissionDigest !== digest) throw new SubmissionConflictError(jobId);
  await recordListing(deps.history, deps.telemetry, gateJobListing(result.created ? result.job : result.existing));

  const answers = await Promise.all(
    Object.entries(body.datacenters).map(async ([region, dc]) => {
      const answer = await deps.regions.submit(region, {
        jobId,
        timeoutSeconds: body.timeoutSeconds,
        ...(body.stuckThresholdSeconds !== undefined ? { stuckThresholdSeconds: body.stuckThresholdSeconds } : {}),
        gateRegion: deps.gateRegion,
        workflows: dc.workflows,
        ...storedTenant(tenant),
      });
      await recordAnswer(deps, jobId, region, answer);
      return [region, answer] as const;
    }),
  );
  const unreachable = answers.filter(([, answer]) => answer.outcome === 'unreachable');
  if (unreachable.length > 0) {
    throw new UpstreamUnavailableError(
      `Region(s) ${unreachable.map(([region]) => region).join(', ')} did not answer. Resend the same body with jobId '${jobId}' to retry; regions that accepted it keep it.`,
      Object.fromEntries(unreachable),
    );
  }
  const refused = answers.filter(([, answer]) => answer.outcome === 'refused');
  if (refused.length > 0) {
    const refusedRegions = refused.map(([region]) => region);
    await decideGateJob(deps, jobId, (job) => cancelAfterRefusal(job, refusedRegions, deps.clock.now(), deps.policy));
    throw new RegionRefusedError(
      `Region(s) ${refusedRegions.join(', ')} refused the job; see details for each region's answer. It is cancelled in the regions that accepted it: fix what the details name and submit it under a new jobId.`,
      Object.fromEntries(refused),
    );
  }
  deps.telemetry.info('gate job submitted', {
    jobId,
    region: deps.gateRegion,
    fenceToken: (result.created ? result.job : result.existing).timeoutFenceToken,
    regions: Object.keys(body.datacenters),
  });
  return {
    created: result.created || wasStillSubmitting(result.existing),
    view: {
      jobId,
      strategy: 'gate_coordinated' as const,
      datacenters: Object.fromEntries(
        answers.map(([region, answer]) => [region, regionTokens(answer, GATE_TOKENS_BUDGET_BYTES / answers.length)]),
      ),
    },
  };
}

/**
 * A resend after a 503 (a region did not answer) completes a submit whose caller never saw it
 * accepted, so it answers 201 too; 200 is for a resend of a job every region had already accepted.
 * A region that took the first fan-out after all and has reported since counts as accepted.
 */
function wasStillSubmitting(existing: GateJob): boolean {
  return Object.values(existing.dcStatus).includes('submitting');
}

async function recordAnswer(deps: GateDeps, jobId: string, region: string, answer: RegionSubmitResult) {
  if (answer.outcome === 'accepted') {
    // When the region started the job, so the gate counts its deadline from then (a resent fan-out
    // starts it late). An answer without a readable one leaves the gate counting from its own start.
    const acceptance = { startedAt: readableTime(answer.body.startedAt), deadlineAt: readableTime(answer.body.deadlineAt) };
    await decideGateJob(deps, jobId, (job) => markRegionSubmitted(job, region, answer.body.fenceToken, acceptance));
  } else if (answer.outcome === 'refused') {
    await decideGateJob(deps, jobId, (job) => markRegionSubmitFailed(job, region, deps.clock.now(), deps.policy));
  }
}

function readableTime(text: unknown): number | undefined {
  const time = typeof text === 'string' ? Date.parse(text) : Number.NaN;
  return Number.isFinite(time) ? time : undefined;
}
