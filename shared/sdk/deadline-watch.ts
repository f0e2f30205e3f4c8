import { MAX_TIMEOUT_MS } from '../ports/long-timeout.js';
import { askAgainAfterMs } from './ask-again.js';
import { waitUnlessAborted } from './call-timers.js';

/** How long Vigil has to answer at the deadline before the work is told to stop on its own clock. */
const DEADLINE_CONFIRM_MS = 5_000;

export interface DeadlineWatch {
  /** Watches the latest deadline again (after every answer that may have moved it). */
  rearm(): void;
  stop(): void;
}

/**
 * AD-34 without waiting for the next heartbeat: at the last deadline Vigil gave, Vigil is asked at
 * once (`ask`), and a Vigil that does not answer within DEADLINE_CONFIRM_MS no longer keeps the work
 * going (`stop`). A deadline Vigil answered past (its own timer not yet fired) is asked about again,
 * later and later (`askAgainAfterMs`).
 */
export function watchDeadline(options: {
  deadlineAtMs: () => number | undefined;
  now: () => number;
  ask: () => Promise<unknown>;
  stop: () => void;
  signal: AbortSignal;
}): DeadlineWatch {
  let timer: NodeJS.Timeout | undefined;
  // Once the work ended (an outcome sent, or stopped): an answer still in flight must not arm it again.
  let stopped = false;
  // Asks in a row about one deadline; one later than the last ask is a new one (an extension moved it).
  let asks = 0;
  let lastAskedAtMs = -Infinity;
  const isNew = (deadlineAtMs: number) => deadlineAtMs > lastAskedAtMs;
  const confirm = async () => {
    const askedAboutMs = options.deadlineAtMs();
    asks = askedAboutMs === undefined || isNew(askedAboutMs) ? 1 : asks + 1;
    lastAskedAtMs = options.now();
    const timeUp = new AbortController();
    const answered = await Promise.race([
      options.ask().then(
        () => true,
        () => false,
      ),
      // On the global setTimeout (call-timers.ts), as a call's own waits: fake timers drive it too.
      waitUnlessAborted(DEADLINE_CONFIRM_MS, timeUp.signal).then(() => false),
    ]);
    timeUp.abort();
    const deadlineAtMs = options.deadlineAtMs();
    if (stopped) return;
    if (!answered && deadlineAtMs !== undefined && options.now() >= deadlineAtMs) options.stop();
    else rearm();
  };
  const rearm = () => {
    clearTimeout(timer);
    const deadlineAtMs = options.deadlineAtMs();
    if (stopped || deadlineAtMs === undefined || options.signal.aborted) return;
    // A deadline farther than setTimeout waits is simply asked about early.
    const askAgainMs = askAgainAfterMs(isNew(deadlineAtMs) ? 0 : asks);
    timer = setTimeout(() => void confirm(), Math.min(MAX_TIMEOUT_MS, Math.max(askAgainMs, deadlineAtMs - options.now())));
    timer.unref();
  };
  const stop = () => {
    stopped = true;
    clearTimeout(timer);
  };
  options.signal.addEventListener('abort', stop, { once: true });
  return { rearm, stop };
}
