import type { ScheduledEvent } from 'aws-lambda';
import { sweepJobTimers } from '../../shared/app/sweep-job-timers.js';
import { lambdaHandler } from '../../shared/http/lambda-context.js';
import { managerFor } from '../../shared/wiring/manager-resolver.js';

/** The one-minute backstop over the sparse timer index. */
export const handler = lambdaHandler<ScheduledEvent, { fired: number }>(async (event) =>
  sweepJobTimers(await managerFor(event.region)),
);
