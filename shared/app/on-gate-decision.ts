import { JobNotFoundError } from '../domain/errors.js';
import { onGlobalCancel, onGlobalTimeout } from '../domain/gate-decisions.js';
import type { JobGlobalCancel } from '../events/job-global-cancel.js';
import type { JobGlobalTimeout } from '../events/job-global-timeout.js';
import { decideJob } from './job-state-store.js';
import { decisionContext, type ManagerDeps } from './manager-deps.js';

export type GateDecision =
  | { kind: 'JobGlobalTimeout'; detail: JobGlobalTimeout }
  | { kind: 'JobGlobalCancel'; detail: JobGlobalCancel };

/** A decision from the gate for a job of this region. Duplicates and stale ones are harmless. */
export async function onGateDecision(deps: ManagerDeps, message: GateDecision): Promise<void> {
  const jobId = message.detail.jobId;
  const fenceToken = 'fenceToken' in message.detail ? { fenceToken: message.detail.fenceToken } : {};
  if (message.detail.region !== deps.region) {
    // Addressed to another region: its fence token is not ours to compare (the bus rule should not deliver it).
    deps.telemetry.warn('gate decision for another region dropped', { jobId, region: deps.region, ...fenceToken, addressedTo: message.detail.region });
    return;
  }
  try {
    const { decision } = await decideJob(deps, jobId, (job) =>
      message.kind === 'JobGlobalTimeout'
        ? onGlobalTimeout(job, message.detail, decisionContext(deps))
        : onGlobalCancel(job, message.detail.reason, decisionContext(deps)),
    );
    deps.telemetry.info(`gate decision ${message.kind} ${decision.ignored ? `ignored: ${decision.ignored}` : 'applied'}`, {
      jobId,
      region: deps.region,
      ...fenceToken,
    });
  } catch (error) {
    if (!(error instanceof JobNotFoundError)) throw error;
    deps.telemetry.warn('gate decision for a job this region does not know', { jobId, region: deps.region, ...fenceToken });
  }
}
