import type { EventBridgeEvent } from 'aws-lambda';
import { onGateDecision } from '../../shared/app/on-gate-decision.js';
import { JobGlobalCancel } from '../../shared/events/job-global-cancel.js';
import { JobGlobalTimeout } from '../../shared/events/job-global-timeout.js';
import { lambdaHandler } from '../../shared/http/lambda-context.js';
import { managerFor } from '../../shared/wiring/manager-resolver.js';

/** JobGlobalTimeout / JobGlobalCancel forwarded from the gate's bus to this region's. */
export const handler = lambdaHandler<EventBridgeEvent<string, unknown>, void>(async (event) => {
  const deps = await managerFor(event.region);
  if (event['detail-type'] === JobGlobalTimeout.detailType) {
    await onGateDecision(deps, { kind: 'JobGlobalTimeout', detail: JobGlobalTimeout.parse(event.detail) });
  } else if (event['detail-type'] === JobGlobalCancel.detailType) {
    await onGateDecision(deps, { kind: 'JobGlobalCancel', detail: JobGlobalCancel.parse(event.detail) });
  } else {
    throw new Error(`on-gate-decision does not handle detail-type '${event['detail-type']}'; check the bus rule.`);
  }
});
