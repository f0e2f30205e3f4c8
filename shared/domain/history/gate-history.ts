import { gateJobStatus } from '../gate/gate-job-status.js';
import { isFinalDcStatus, type GateJob } from '../gate/gate-job.js';
import type { EpochMs } from '../time.js';
import { sampleBucket, type HistoryEntry } from './history-entry.js';

/** What a gate decision did to its view of a job (reports heard, its decision, each region's confirmation). */
export function gateHistoryEntries(before: GateJob, after: GateJob, at: EpochMs): HistoryEntry[] {
  const entries: HistoryEntry[] = [];
  const window = { startedAt: after.submittedAt, timeoutSeconds: after.timeoutSeconds };
  for (const region of after.targetRegions) {
    const reportAt = after.dcLastReportAt[region];
    const previousAt = before.dcLastReportAt[region];
    // A region's reports are sampled: its slot keeps one per bucket, so only the first one there is written.
    const firstInBucket = previousAt === undefined || sampleBucket(reportAt ?? previousAt, window) !== sampleBucket(previousAt, window);
    if (reportAt !== undefined && reportAt > (previousAt ?? -Infinity) && firstInBucket) {
      entries.push({ kind: 'gate_report', at, region, lastProgressAt: after.dcLastProgress[region] ?? reportAt });
    }
    const reported = after.dcTimeoutReported[region];
    if (reported !== undefined && before.dcTimeoutReported[region] === undefined) {
      entries.push({ kind: 'timeout_report', at, region, reason: reported });
    }
    const fence = after.dcFenceToken[region] ?? 0;
    const wasFence = before.dcFenceToken[region] ?? 0;
    // The first token heard is the submission's, not a takeover.
    if (fence > wasFence && wasFence > 0) entries.push({ kind: 'takeover', at, region, fromFenceToken: wasFence, toFenceToken: fence });
    const status = after.dcStatus[region];
    const wasStatus = before.dcStatus[region];
    if (status !== undefined && isFinalDcStatus(status) && (wasStatus === undefined || !isFinalDcStatus(wasStatus))) {
      entries.push({ kind: 'region_confirmed', at, region, status });
    }
  }
  if (after.globallyTimedOut && !before.globallyTimedOut) {
    entries.push({
      kind: 'gate_decision',
      at: after.decidedAt ?? at,
      decision: 'global_timeout',
      ...(after.timeoutReason !== undefined ? { reason: after.timeoutReason } : {}),
      fenceToken: after.timeoutFenceToken,
    });
  }
  if (after.cancelRequested && !before.cancelRequested) {
    entries.push({
      kind: 'gate_decision',
      at: after.decidedAt ?? at,
      decision: 'cancel',
      ...(after.cancelRequested.reason !== undefined ? { reason: after.cancelRequested.reason } : {}),
      fenceToken: after.timeoutFenceToken,
    });
  }
  // A cancel that reached every region only after they completed turns CANCELLED into COMPLETED:
  // the final entry (one slot) follows the status whenever it changes.
  const status = gateJobStatus(after);
  if (status !== 'RUNNING' && status !== gateJobStatus(before)) {
    entries.push({ kind: 'final', at, status, ...(after.timeoutReason !== undefined ? { reason: after.timeoutReason } : {}) });
  }
  return entries;
}
