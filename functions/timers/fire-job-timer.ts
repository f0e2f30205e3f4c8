import { fireManagerTimer } from '../../shared/app/fire-manager-timer.js';
import { timerQueueHandler } from '../../shared/http/timer-queue-handler.js';
import { managerFor } from '../../shared/wiring/manager-resolver.js';

export const handler = timerQueueHandler(async (timer, region) => fireManagerTimer(await managerFor(region), timer));
