import { fireJobTimer } from '../../shared/app/fire-job-timer.js';
import { timerQueueHandler } from '../../shared/http/timer-queue-handler.js';
import { managerFor } from '../../shared/wiring/manager-resolver.js';

export const handler = timerQueueHandler(async (timer, region) => fireJobTimer(await managerFor(region), timer));
