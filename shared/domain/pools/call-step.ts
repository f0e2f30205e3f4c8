import type { VigilError } from '../errors.js';
import type { ItemStep } from './resolve-attempt.js';

/** One agent call decided on the item: the new item, its effects, and either the answer or the refusal. */
export interface CallStep extends ItemStep {
  reply: unknown;
  refusal?: VigilError;
}
