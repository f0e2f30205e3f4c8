import { setTimeout as sleep } from 'node:timers/promises';
import { setLongTimeout } from '../ports/long-timeout.js';
import { VigilUnreachableError } from '../sdk/errors.js';
import { ASK_AT_DEADLINE_MS } from './ask-at-deadline.js';

/** How often a call Vigil did not answer is sent again. */
const RESEND_MS = 2_000;
/** Without a deadline from Vigil (`per_command` has no agent deadline), a call is offered this long. */
const WITHOUT_DEADLINE_MS = 5 * 60_000;

/** Until when a call is worth sending: past the work's end Vigil has decided without it. */
export const sendUntil = (deadlineAtMs: number | undefined): number => deadlineAtMs ?? Date.now() + WITHOUT_DEADLINE_MS;

/**
 * A call whose answer the run needs (an outcome, a command's start or finish) is sent again through
 * an outage of Vigil until `untilMs`: Vigil takes each of them again as the same call. A refusal is
 * an answer and ends it at once. A send still unanswered at `untilMs` is abandoned, so a Vigil that
 * hangs holds the run no longer than that; one begun late still has ASK_AT_DEADLINE_MS, as long as the
 * runner waits for Vigil's word at a deadline (Vigil keeps a late outcome in the attempt's history).
 */
export async function untilAnswered<T>(send: (signal: AbortSignal) => Promise<T>, untilMs: number, log: (line: string) => void): Promise<T> {
  for (;;) {
    try {
      return await sendBy(send, Math.max(untilMs, Date.now() + ASK_AT_DEADLINE_MS));
    } catch (error) {
      if (!(error instanceof VigilUnreachableError) || Date.now() >= untilMs) throw error;
      log(`${error.message}; sending it again`);
      await sleep(Math.max(0, Math.min(RESEND_MS, untilMs - Date.now())));
    }
  }
}

async function sendBy<T>(send: (signal: AbortSignal) => Promise<T>, byMs: number): Promise<T> {
  const giveUp = new AbortController();
  // A deadline may be further away than setTimeout waits.
  const timer = setLongTimeout(() => giveUp.abort(new Error('given up at the deadline')), byMs - Date.now());
  try {
    return await send(giveUp.signal);
  } finally {
    timer.clear();
  }
}
