import { count, defineEvent } from '../event-contract.js';
import { attemptFields } from './pool-event-fields.js';

/** Seed 002 `checkpoint_timeout`: no checkpoint within `checkpoint_timeout_secs`; `misses` counts this attempt's. */
export const CheckpointMissed = defineEvent('CheckpointMissed', 1, {
  ...attemptFields,
  misses: count(),
});
