import { createHash } from 'node:crypto';
import type { TimerRef } from '../../ports/timers.js';

/** Scheduler names allow 1–64 of these; job ids allow ':' and up to 128 characters. */
export const SCHEDULE_NAME_PATTERN = /^[0-9A-Za-z_.-]{1,64}$/;

const HASH_HEX_CHARS = 40;

/**
 * One schedule per job, scope and fence token, so re-arming replaces the previous wake-up instead of
 * adding one. The fence token is in the name because a schedule is last writer wins: an arm of an
 * older leader (or an older attempt) that lands after the current one's would otherwise replace it,
 * and its wake-up would be dropped as stale. It now writes a schedule of its own, which fires once
 * and is dropped. (`job-` + 40 + `-` + at most 16 digits: 61 characters.)
 */
export function scheduleNameFor({ scope, jobId, fenceToken }: TimerRef): string {
  const hash = createHash('sha256').update(jobId, 'utf8').digest('hex').slice(0, HASH_HEX_CHARS);
  return `${scope}-${hash}-${fenceToken}`;
}
