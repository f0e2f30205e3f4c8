import { unchanged, type Decision } from '../effects.js';
import { sendDecision } from './decision-events.js';
import type { GateJob } from './gate-job.js';

/**
 * A region that still talks to the gate after the decision has not got it, or not at its current
 * fence token: it is answered at once with the decision. This is how a decision rejected as stale is
 * never lost (seed 000 Scenario 3), and how it reaches a region after the timed re-sends gave up.
 * `prev` is returned as is when the message changed nothing, so the caller can skip the write.
 */
export function replyWithDecision(prev: GateJob, next: GateJob, region: string): Decision<GateJob> {
  const effects = sendDecision(next, [region]);
  return next === prev ? unchanged(prev, 'decision_resent', effects) : { state: next, effects };
}
