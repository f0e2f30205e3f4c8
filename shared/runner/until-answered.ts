import { setTimeout as sleep } from 'node:timers/promises';
import { VigilUnreachableError } from '../sdk/errors.js';

/** How often a call Vigil did not answer is sent again. */
const RESEND_MS = 2_000;
/** Without a deadline from Vigil (`per_command` has no agent deadline), a call is offered this long. */
const WITHOUT_DEADLINE_MS = 5 * 60_000;

/** Until when a call is worth sending: past the work's end Vigil has decided without it. */
export const sendUntil = (deadlineAtMs: number | undefined): number => deadlineAtMs ?? Date.now() + WITHOUT_DEADLINE_MS;

/**
 * A call whose answer the run needs (an outcome, a command's start or finish) is sent again through
 * an outage of Vigil until `untilMs`: Vigil takes each of them again as the same call. A refusal is
 * an answer and ends it at once.
 */
export async function untilAnswered<T>(send: () => Promise<T>, untilMs: number, log: (line: string) => void): Promise<T> {
  for (;;) {
    try {
      return await send();
    } catch (error) {
      if (!(error instanceof VigilUnreachableError) || Date.now() >= untilMs) throw error;
      log(`${error.message}; sending it again`);
      await sleep(Math.max(0, Math.min(RESEND_MS, untilMs - Date.now())));
    }
  }
}
