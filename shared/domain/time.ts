/** Absolute time in epoch milliseconds. Stored as-is; `startedAt` never changes. */
export type EpochMs = number;

export const secondsToMs = (seconds: number): number => Math.round(seconds * 1000);
export const msToSeconds = (ms: number): number => ms / 1000;
export const toIso = (at: EpochMs): string => new Date(at).toISOString();

/** The longest duration anything in Vigil may name: a job's timeout and stuck threshold (contract), a default for them. */
export const MAX_DURATION_SECONDS = 31_536_000;
