import type { EventBridgeEvent } from 'aws-lambda';
import { onManagerReport, type ManagerReport } from '../../shared/app/gate/on-manager-report.js';
import { JobFinalStatus } from '../../shared/events/job-final-status.js';
import { JobLeaderTransfer } from '../../shared/events/job-leader-transfer.js';
import { JobProgressReport } from '../../shared/events/job-progress-report.js';
import { JobTimeoutReport } from '../../shared/events/job-timeout-report.js';
import { lambdaHandler } from '../../shared/http/lambda-context.js';
import { gate } from '../../shared/wiring/gate-resolver.js';

/** Exported for the simulator, which consumes the same events without the Lambda wrapper. */
export function parseReport(event: Pick<EventBridgeEvent<string, unknown>, 'detail-type' | 'detail'>): ManagerReport {
  switch (event['detail-type']) {
    case JobProgressReport.detailType:
      return { kind: 'JobProgressReport', detail: JobProgressReport.parse(event.detail) };
    case JobTimeoutReport.detailType:
      return { kind: 'JobTimeoutReport', detail: JobTimeoutReport.parse(event.detail) };
    case JobLeaderTransfer.detailType:
      return { kind: 'JobLeaderTransfer', detail: JobLeaderTransfer.parse(event.detail) };
    case JobFinalStatus.detailType:
      return { kind: 'JobFinalStatus', detail: JobFinalStatus.parse(event.detail) };
    default:
      throw new Error(`on-manager-report does not handle detail-type '${event['detail-type']}'; check the bus rule.`);
  }
}

/** Managers' reports forwarded from every region's bus to the gate's. */
export const handler = lambdaHandler<EventBridgeEvent<string, unknown>, void>(async (event) =>
  onManagerReport(await gate(), parseReport(event)),
);
