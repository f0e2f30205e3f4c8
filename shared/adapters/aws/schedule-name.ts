import { createHash } from 'node:crypto';
import type { TimerRequest } from '../../ports/timers.js';

/** Scheduler names allow 1–64 of these; job ids allow ':' and up to 128 characters. */
export const SCHEDULE_NAME_PATTERN = /^[0-9A-Za-z_.-]{1,64}$/;

const HASH_HEX_CHARS = 40;

/** One schedule per job and scope, so re-arming replaces the previous wake-up instead of adding one. */
export function scheduleNameFor(scope: TimerRequest['scope'], jobId: string): string {
  const hash = createHash('sha256').update(jobId, 'utf8').digest('hex').slice(0, HASH_HEX_CHARS);
  return `${scope}-${hash}`;
}
