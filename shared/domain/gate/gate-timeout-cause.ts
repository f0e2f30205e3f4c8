/**
 * Seed 000 Part 5, the three conditions of a global timeout. The stored `timeoutReason` is its text:
 * `timeout` (the global deadline passed: global-deadline.ts), `stuck` (every still-running region
 * without progress for the gate stuck threshold), or `dc_timeout:<region>:<reason>` (that region
 * timed out locally, for the reason it gave: `timeout`, `stuck`, …).
 */
export type GateTimeoutCause =
  | { kind: 'timeout' }
  | { kind: 'stuck' }
  | { kind: 'dc_timeout'; region: string; localReason: string };

export const timeoutReasonText = (cause: GateTimeoutCause): string =>
  cause.kind === 'dc_timeout' ? `dc_timeout:${cause.region}:${cause.localReason}` : cause.kind;

/** The kind of a stored `timeoutReason`: `timeout`, `stuck` or `dc_timeout`. */
export const timeoutReasonKind = (timeoutReason: string): string => timeoutReason.split(':', 1)[0] ?? timeoutReason;
