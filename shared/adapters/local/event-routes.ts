import { JobFinalStatus } from '../../events/job-final-status.js';
import { JobGlobalCancel } from '../../events/job-global-cancel.js';
import { JobGlobalTimeout } from '../../events/job-global-timeout.js';
import { JobLeaderTransfer } from '../../events/job-leader-transfer.js';
import { JobProgressReport } from '../../events/job-progress-report.js';
import { JobTimeoutReport } from '../../events/job-timeout-report.js';
import type { BusEvent } from '../../ports/event-bus.js';

export const GATE = 'gate';

const managerToGate = new Set([
  JobProgressReport.detailType,
  JobTimeoutReport.detailType,
  JobLeaderTransfer.detailType,
  JobFinalStatus.detailType,
]);
const gateToRegion = new Set([JobGlobalTimeout.detailType, JobGlobalCancel.detailType]);

/**
 * The bus rules of the deployed system, as a function: a manager's report goes to the gate, a
 * gate decision to the region it names. Anything else (JobTimedOut) stays on its own bus.
 */
export function routeOf(event: BusEvent): string | undefined {
  if (managerToGate.has(event.detailType)) return GATE;
  if (gateToRegion.has(event.detailType)) {
    const region = event.detail['region'];
    return typeof region === 'string' ? region : undefined;
  }
  return undefined;
}
