import { JobNotFoundError } from '../../domain/errors.js';
import { onFinalStatus } from '../../domain/gate/on-final-status.js';
import { onLeaderTransfer } from '../../domain/gate/on-leader-transfer.js';
import { onProgressReport } from '../../domain/gate/on-progress-report.js';
import { onTimeoutReport } from '../../domain/gate/on-timeout-report.js';
import type { GateJob } from '../../domain/gate/gate-job.js';
import type { Decision } from '../../domain/effects.js';
import type { JobFinalStatus } from '../../events/job-final-status.js';
import type { JobLeaderTransfer } from '../../events/job-leader-transfer.js';
import type { JobProgressReport } from '../../events/job-progress-report.js';
import type { JobTimeoutReport } from '../../events/job-timeout-report.js';
import { decideGateJob } from './decide-gate-job.js';
import type { GateDeps } from './gate-deps.js';

export type ManagerReport =
  | { kind: 'JobProgressReport'; detail: JobProgressReport }
  | { kind: 'JobTimeoutReport'; detail: JobTimeoutReport }
  | { kind: 'JobLeaderTransfer'; detail: JobLeaderTransfer }
  | { kind: 'JobFinalStatus'; detail: JobFinalStatus };

function decide(report: ManagerReport, job: GateJob, deps: GateDeps): Decision<GateJob> {
  const now = deps.clock.now();
  switch (report.kind) {
    case 'JobProgressReport':
      return onProgressReport(job, report.detail, now, deps.policy);
    case 'JobTimeoutReport':
      return onTimeoutReport(job, report.detail, now, deps.policy);
    case 'JobLeaderTransfer':
      return onLeaderTransfer(job, report.detail);
    case 'JobFinalStatus':
      return onFinalStatus(job, report.detail, now, deps.policy);
  }
}

/** A region manager's report reached the gate's bus. Duplicates, reordering and stale ones are harmless. */
export async function onManagerReport(deps: GateDeps, report: ManagerReport): Promise<void> {
  const { jobId, region, fenceToken } = report.detail;
  try {
    const { decision } = await decideGateJob(deps, jobId, (job) => decide(report, job, deps));
    if (report.kind !== 'JobProgressReport' || decision.effects.length > 0) {
      deps.telemetry.info(`${report.kind} ${decision.ignored ? `ignored: ${decision.ignored}` : 'recorded'}`, { jobId, region, fenceToken });
    }
  } catch (error) {
    if (!(error instanceof JobNotFoundError)) throw error;
    deps.telemetry.warn('report for a job the gate does not know', { jobId, region, fenceToken });
  }
}
