import type { EpochMs } from '../domain/time.js';

export interface Clock {
  now(): EpochMs;
}

export const systemClock: Clock = { now: () => Date.now() };
