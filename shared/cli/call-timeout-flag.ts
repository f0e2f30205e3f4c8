import { secondsFlag } from './seconds-flag.js';

/**
 * How long a command that answers at once (all but `run` and `console`) waits for each call to Vigil,
 * its retries included. A whole try fits (the SDK's 10 s, many times a cold Lambda and a page read),
 * and so do the quick retries of a brief outage (refused connections, 5xx, 429: about 3 s of back-off
 * for all four); a Vigil that accepts the connection and never answers is reported within it instead
 * of after five 10 s tries (~52 s), which is longer than a user at a terminal should wait to hear.
 */
export const INTERACTIVE_CALL_BUDGET_SECONDS = 15;

export const CALL_TIMEOUT_HELP = `--call-timeout S seconds to wait for Vigil's answer to each call, retries included (default ${INTERACTIVE_CALL_BUDGET_SECONDS})`;

/** `--call-timeout S` in ms: a UsageError when it is not a number of seconds > 0. */
export const callBudgetMs = (flag: string | undefined): number => secondsFlag('call-timeout', flag, INTERACTIVE_CALL_BUDGET_SECONDS, { above: 0 }) * 1000;
