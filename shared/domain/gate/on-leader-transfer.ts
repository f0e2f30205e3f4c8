import { unchanged, type Decision } from '../effects.js';
import type { JobLeaderTransfer } from '../../events/job-leader-transfer.js';
import { isDecided, type GateJob } from './gate-job.js';
import { heardFromRegion, ignoredRegionMessage } from './region-message-guard.js';
import { replyWithDecision } from './reply-with-decision.js';

export type LeaderTransferInput = Pick<JobLeaderTransfer, 'region' | 'fenceToken'>;

/**
 * A takeover in a region, or that region's correction after rejecting a stale global timeout
 * (seed 000 Scenario 3): the gate learns the current fence token and, if it has decided, re-issues
 * the decision with it right away. Repeats re-issue again, which the manager treats as a no-op.
 */
export function onLeaderTransfer(job: GateJob, transfer: LeaderTransferInput): Decision<GateJob> {
  const ignored = ignoredRegionMessage(job, transfer.region, transfer.fenceToken, 'leader_transfer');
  if (ignored) return ignored;
  const next = heardFromRegion(job, transfer.region, transfer.fenceToken);
  if (isDecided(next)) return replyWithDecision(job, next, transfer.region);
  return next === job ? unchanged(job, 'duplicate') : { state: next, effects: [] };
}
