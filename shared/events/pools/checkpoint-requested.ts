import { defineEvent, isoTime } from '../event-contract.js';
import { attemptFields } from './pool-event-fields.js';

/** Seed 002: a checkpoint request opened for an attempt (or a collection asked for one). */
export const CheckpointRequested = defineEvent('CheckpointRequested', 1, {
  ...attemptFields,
  answerBy: isoTime,
});
