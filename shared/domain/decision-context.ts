import type { TimeoutPolicy } from './policy.js';
import type { EpochMs } from './time.js';

/** What a decision may know besides the state: the time, the policy and who decides. */
export interface DecisionContext {
  now: EpochMs;
  policy: TimeoutPolicy;
  /** Identifies the deciding manager in events (`managerId`, `newLeaderId`). */
  managerId: string;
}
