import * as z from '../validation/zod.js';
import { defineEvent, fenceToken, jobId } from './event-contract.js';

/**
 * Manager → gate after a takeover (seed 001 §10.2.4). Also the manager's correction when it rejects
 * a stale `JobGlobalTimeout`: it tells the gate the current fence token so the gate can re-issue.
 */
export const JobLeaderTransfer = defineEvent('JobLeaderTransfer', 1, {
  jobId,
  region: z.string(),
  gateRegion: z.string(),
  newLeaderId: z.string(),
  fenceToken,
});
export type JobLeaderTransfer = ReturnType<typeof JobLeaderTransfer.parse>;
