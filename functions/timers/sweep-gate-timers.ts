import type { ScheduledEvent } from 'aws-lambda';
import { sweepGateTimers } from '../../shared/app/gate/sweep-gate-timers.js';
import { lambdaHandler } from '../../shared/http/lambda-context.js';
import { gate } from '../../shared/wiring/gate-resolver.js';

/** The gate's one-minute backstop over its sparse timer index. */
export const handler = lambdaHandler<ScheduledEvent, { fired: number }>(async () => sweepGateTimers(await gate()));
