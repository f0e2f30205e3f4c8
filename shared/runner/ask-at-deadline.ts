import { setTimeout as sleep } from 'node:timers/promises';
import { askAgainAfterMs } from '../sdk/ask-again.js';
import { VigilApiError } from '../sdk/errors.js';
import type { ChildGroup } from './process-group.js';
import { superviseChild, type SuperviseOptions, type SupervisionEnd } from './supervise-child.js';

/**
 * How long the runner waits for Vigil's word on a deadline its clock saw come before it enforces the
 * deadline itself. The contract lets it act on its own only "if Vigil becomes unreachable": one that
 * answers decides. As long as the SDK's own deadline watch waits.
 */
export const ASK_AT_DEADLINE_MS = 5_000;
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

export interface HearingVigilOptions extends SuperviseOptions {
  /** The call that asks Vigil whether to go on (a heartbeat, a progress report). */
  ask: () => Promise<unknown>;
  /** Until when Vigil's answer is waited for, after a deadline the runner's clock saw come at `atMs`. */
  askUntilMs: (atMs: number) => number;
}

/**
 * Supervises the child (superviseChild) until it exits or must stop. A deadline that comes on the
 * runner's clock is put to Vigil first: while Vigil answers, its word decides (it may still say go on:
 * its timer not yet fired, an extension granted elsewhere, its clock virtual), and it is asked again
 * later and later (`askAgainAfterMs`). Only a Vigil that does not answer leaves the runner to enforce
 * the deadline.
 */
export async function superviseHearingVigil(group: ChildGroup, options: HearingVigilOptions): Promise<SupervisionEnd> {
  const { ask, askUntilMs, ...supervise } = options;
  const now = options.now ?? Date.now;
  let askAgainAtMs = 0;
  let asks = 0;
  for (;;) {
    let end = await superviseChild(group, {
      ...supervise,
      deadlineMs: () => {
        const due = options.deadlineMs();
        return due === undefined ? undefined : Math.max(due, askAgainAtMs);
      },
    });
    if (end.kind !== 'stop' || end.cause !== 'deadline') return end;
    // A deadline past the ask planned is a new one (an extension moved it): asked about from 1 s again.
    const dueMs = options.deadlineMs();
    asks = dueMs !== undefined && dueMs > askAgainAtMs ? 1 : asks + 1;
    const answered = await vigilAnswered(ask, askUntilMs(end.atMs), options.signal, now);
    if (options.signal.aborted) end = { ...end, cause: 'vigil' };
    // Told to stop meanwhile (Ctrl-C sent the group SIGTERM already): that stop it is.
    if (!options.signal.aborted && options.stopping?.aborted) continue;
    if (options.signal.aborted || !answered) return end;
    askAgainAtMs = now() + askAgainAfterMs(asks);
  }
}
