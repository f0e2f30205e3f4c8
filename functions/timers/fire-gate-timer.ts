import { fireGateTimer } from '../../shared/app/gate/fire-gate-timer.js';
import { timerQueueHandler } from '../../shared/http/timer-queue-handler.js';
import { gate } from '../../shared/wiring/gate-resolver.js';

export const handler = timerQueueHandler(async (timer) => fireGateTimer(await gate(), timer));
