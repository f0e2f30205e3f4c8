/**
 * A time in an answer (`deadlineAt`, `terminateBy`) as epoch ms; undefined when absent or not a time.
 * Not NaN: a deadline of NaN armed the deadline watch's timer for NaN ms, which Node fires after 1 ms,
 * and the watch then asked Vigil as fast as it answered. A time that cannot be read is no news.
 */
export function answeredEpochMs(iso: string | null | undefined): number | undefined {
  if (!iso) return undefined;
  const epochMs = Date.parse(iso);
  return Number.isFinite(epochMs) ? epochMs : undefined;
}
