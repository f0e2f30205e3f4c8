import type { EventBridgeEvent } from 'aws-lambda';
import { onGateDecision, type GateDecision } from '../../shared/app/on-gate-decision.js';
import { JobGlobalCancel } from '../../shared/events/job-global-cancel.js';
import { JobGlobalTimeout } from '../../shared/events/job-global-timeout.js';
import { lambdaHandler } from '../../shared/http/lambda-context.js';
import { managerFor } from '../../shared/wiring/manager-resolver.js';

/** Exported for the simulator, which consumes the same events without the Lambda wrapper. */
export function parseGateDecision(event: Pick<EventBridgeEvent<string, unknown>, 'detail-type' | 'detail'>): GateDecision {
  if (event['detail-type'] === JobGlobalTimeout.detailType) return { kind: 'JobGlobalTimeout', detail: JobGlobalTimeout.parse(event.detail) };
  if (event['detail-type'] === JobGlobalCancel.detailType) return { kind: 'JobGlobalCancel', detail: JobGlobalCancel.parse(event.detail) };
  throw new Error(`on-gate-decision does not handle detail-type '${event['detail-type']}'; check the bus rule.`);
}

/** JobGlobalTimeout / JobGlobalCancel forwarded from the gate's bus to this region's. */
export const handler = lambdaHandler<EventBridgeEvent<string, unknown>, void>(async (event) =>
  onGateDecision(await managerFor(event.region), parseGateDecision(event)),
);
