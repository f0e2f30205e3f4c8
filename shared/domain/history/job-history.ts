import { effectiveDeadline } from '../deadlines.js';
import { decodeGrants } from '../extension-ledger.js';
import { isTerminal, type Job } from '../job.js';
import type { EpochMs } from '../time.js';
import { sampleBucket, type HistoryEntry } from './history-entry.js';

/**
 * What a region manager's decision did to a job, read off the state before and after it: the one
 * place history is derived, so no use case has to know about it.
 */
export function jobHistoryEntries(before: Job, after: Job, at: EpochMs): HistoryEntry[] {
  const was = before.tracking;
  const now = after.tracking;
  const entries: HistoryEntry[] = [];
  // Every grant is recorded, also one that leaves the deadline where it was (another worker's
  // larger extension already governs it: AD-34 Part 8), so the picture shows why it did not move.
  // The job item names a worker by the index of its workflow (extension-ledger.ts), not by its id.
  const earlier = decodeGrants(was.workerGrants);
  for (const grant of decodeGrants(now.workerGrants).values()) {
    const grown = grant.seconds - (earlier.get(grant.workerIndex)?.seconds ?? 0);
    if (grown > 0) {
      entries.push({
        kind: 'extension',
        at,
        workerIndex: grant.workerIndex,
        seconds: grown,
        fromDeadlineAt: effectiveDeadline(was),
        toDeadlineAt: effectiveDeadline(now),
      });
    }
  }
  if (now.fenceToken > was.fenceToken) entries.push({ kind: 'takeover', at, fromFenceToken: was.fenceToken, toFenceToken: now.fenceToken });
  // Reports to the gate are sampled: their slot keeps one per bucket, so only the first one there is written.
  const window = { startedAt: now.startedAt, timeoutSeconds: now.timeoutSeconds };
  const firstReportInBucket = sampleBucket(now.lastReportAt, window) !== sampleBucket(was.lastReportAt, window);
  if (now.lastReportAt > was.lastReportAt && !now.locallyTimedOut && firstReportInBucket) {
    entries.push({ kind: 'gate_report', at, region: after.region, lastProgressAt: now.lastProgressAt });
  }
  if (now.locallyTimedOut && !was.locallyTimedOut) entries.push({ kind: 'local_timeout', at, reason: now.timeoutReason ?? 'timeout' });
  if (now.timeoutReportedAt !== undefined && was.timeoutReportedAt === undefined) {
    entries.push({ kind: 'timeout_report', at: now.timeoutReportedAt, reason: now.timeoutReason ?? 'timeout' });
  }
  if (now.globallyTimedOut && !was.globallyTimedOut) {
    entries.push({ kind: 'gate_decision', at, decision: 'global_timeout', reason: 'global_timeout', fenceToken: now.fenceToken });
  }
  if (isTerminal(after.status) && !isTerminal(before.status)) {
    entries.push({
      kind: 'final',
      at: after.finishedAt ?? at,
      status: after.status,
      ...(after.status === 'TIMED_OUT' && now.timeoutReason ? { reason: now.timeoutReason } : {}),
      ...(after.cancelReason !== undefined ? { reason: after.cancelReason } : {}),
    });
  }
  return entries;
}
