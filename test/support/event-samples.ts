import type { BusEvent } from '../../shared/ports/event-bus.js';
import { JobFinalStatus } from '../../shared/events/job-final-status.js';
import { JobGlobalCancel } from '../../shared/events/job-global-cancel.js';
import { JobGlobalTimeout } from '../../shared/events/job-global-timeout.js';
import { JobLeaderTransfer } from '../../shared/events/job-leader-transfer.js';
import { JobProgressReport } from '../../shared/events/job-progress-report.js';
import { JobTimedOut } from '../../shared/events/job-timed-out.js';
import { JobTimeoutReport } from '../../shared/events/job-timeout-report.js';

export interface EventSample {
  /** The event module's file name under shared/events/. */
  module: string;
  detailType: string;
  event: BusEvent;
  parse(detail: unknown): unknown;
}

const at = '2031-01-15T10:00:00.000Z';

/** One valid event of every type in shared/events/, built with the module's own `build`. */
export const eventSamples: EventSample[] = [
  {
    module: 'job-final-status.ts',
    detailType: JobFinalStatus.detailType,
    event: JobFinalStatus.build({
      jobId: 'job:final',
      region: 'eu-west-1',
      gateRegion: 'us-east-1',
      managerId: 'manager-eu-west-1',
      status: 'TIMED_OUT',
      timeoutReason: 'stuck',
      timestamp: at,
      fenceToken: 4,
    }),
    parse: JobFinalStatus.parse,
  },
  {
    module: 'job-global-cancel.ts',
    detailType: JobGlobalCancel.detailType,
    event: JobGlobalCancel.build({ jobId: 'job:cancel', region: 'eu-west-1', reason: 'operator' }),
    parse: JobGlobalCancel.parse,
  },
  {
    module: 'job-global-timeout.ts',
    detailType: JobGlobalTimeout.detailType,
    event: JobGlobalTimeout.build({
      jobId: 'job:global',
      region: 'eu-west-1',
      reason: 'timeout',
      timedOutAt: at,
      fenceToken: 2,
    }),
    parse: JobGlobalTimeout.parse,
  },
  {
    module: 'job-leader-transfer.ts',
    detailType: JobLeaderTransfer.detailType,
    event: JobLeaderTransfer.build({
      jobId: 'job:transfer',
      region: 'eu-west-1',
      gateRegion: 'us-east-1',
      newLeaderId: 'manager-eu-west-1-b',
      fenceToken: 5,
    }),
    parse: JobLeaderTransfer.parse,
  },
  {
    module: 'job-progress-report.ts',
    detailType: JobProgressReport.detailType,
    event: JobProgressReport.build({
      jobId: 'job:progress',
      region: 'eu-west-1',
      gateRegion: 'us-east-1',
      managerId: 'manager-eu-west-1',
      workflowsTotal: 10,
      workflowsCompleted: 4,
      workflowsFailed: 1,
      hasRecentProgress: true,
      lastProgressAt: at,
      timestamp: at,
      fenceToken: 1,
      totalExtensionsGranted: 12.5,
      maxWorkerExtension: 7.5,
      workersWithExtensions: 2,
    }),
    parse: JobProgressReport.parse,
  },
  {
    module: 'job-timed-out.ts',
    detailType: JobTimedOut.detailType,
    event: JobTimedOut.build({
      jobId: 'job:timed-out',
      region: 'eu-west-1',
      strategy: 'gate_coordinated',
      reason: 'global_timeout',
      startedAt: '2031-01-15T09:00:00.000Z',
      timedOutAt: at,
      fenceToken: 3,
    }),
    parse: JobTimedOut.parse,
  },
  {
    module: 'job-timeout-report.ts',
    detailType: JobTimeoutReport.detailType,
    event: JobTimeoutReport.build({
      jobId: 'job:report',
      region: 'eu-west-1',
      gateRegion: 'us-east-1',
      managerId: 'manager-eu-west-1',
      reason: 'timeout',
      elapsedSeconds: 3600.25,
      fenceToken: 1,
    }),
    parse: JobTimeoutReport.parse,
  },
];
