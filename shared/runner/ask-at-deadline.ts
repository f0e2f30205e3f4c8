import { setTimeout as sleep } from 'node:timers/promises';
import { VigilApiError } from '../sdk/errors.js';

/**
 * How long the runner waits for Vigil's word on a deadline its clock saw come before it enforces the
 * deadline itself. The contract lets it act on its own only "if Vigil becomes unreachable": one that
 * answers decides. As long as the SDK's own deadline watch waits.
 */
export const ASK_AT_DEADLINE_MS = 5_000;
/** How soon a deadline Vigil answered past (its timer not fired yet, its clock virtual) is asked about again. */
export const ASK_AGAIN_MS = 1_000;
/** Between tries of a call Vigil did not answer. */
const RETRY_MS = 250;

/**
 * Asks Vigil (`ask`, again after each try it did not answer) until it answers, `untilMs` passes, or
 * `signal` fires (Vigil said stop). True when it answered: a refusal is an answer too.
 */
export async function vigilAnswered(ask: () => Promise<unknown>, untilMs: number, signal: AbortSignal, now: () => number = Date.now): Promise<boolean> {
  while (!signal.aborted && now() < untilMs) {
    const answered = await settledBy(
      ask().then(
        () => true,
        (error: unknown) => error instanceof VigilApiError,
      ),
      untilMs,
      now,
    );
    if (answered === true) return true;
    if (!signal.aborted) await sleep(Math.max(0, Math.min(RETRY_MS, untilMs - now())));
  }
  return false;
}

/** What `work` settled to, or undefined once `untilMs` passes first; `work` itself goes on. */
export async function settledBy<T>(work: Promise<T>, untilMs: number, now: () => number = Date.now): Promise<T | undefined> {
  const timer = new AbortController();
  const timeUp = sleep(Math.max(0, untilMs - now()), undefined, { signal: timer.signal }).catch(() => undefined);
  const result = await Promise.race([work.catch(() => undefined), timeUp]);
  timer.abort();
  return result;
}
