/** Absolute time in epoch milliseconds. Stored as-is; `startedAt` never changes. */
export type EpochMs = number;

export const secondsToMs = (seconds: number): number => Math.round(seconds * 1000);
export const msToSeconds = (ms: number): number => ms / 1000;
export const toIso = (at: EpochMs): string => new Date(at).toISOString();

/** The longest duration anything in Vigil may name: a job's timeout and stuck threshold (contract), a default for them. */
export const MAX_DURATION_SECONDS = 31_536_000;

/**
 * A duration as Vigil stores it: Vigil's clock counts milliseconds, and DynamoDB cannot store a
 * magnitude below 1e-130 (Schemathesis found 5e-324 s answered 500), so one shorter than a
 * millisecond is kept as one millisecond. Applied where a submission is stored, after its digest.
 */
export const storableSeconds = (seconds: number): number => Math.max(seconds, 0.001);
