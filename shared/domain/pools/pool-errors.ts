import { VigilError } from '../errors.js';

export class PoolNotFoundError extends VigilError {
  readonly code = 'pool_not_found';
  constructor(poolId: string) {
    super(`No pool '${poolId}' in this region. Check the poolId, or create the pool first with POST /pools.`);
  }
}
export class ItemNotFoundError extends VigilError {
  readonly code = 'item_not_found';
  constructor(poolId: string, itemId: string) {
    super(`Pool '${poolId}' has no item '${itemId}'. Use an itemId from the pool's items (GET /pools/${poolId}/dlq lists dead-lettered ones).`);
  }
}
export class InvalidPoolConfigError extends VigilError {
  readonly code = 'invalid_request';
}
export class ClarifiedInputTooLargeError extends VigilError {
  readonly code = 'invalid_request';
  constructor(itemId: string, bytes: number, limitBytes: number) {
    super(
      `Item '${itemId}''s input with this clarification and the earlier ones would be ${bytes} bytes of JSON, past ${limitBytes}. Nothing was changed: send a shorter clarification, or answer split or skip.`,
    );
  }
}
export class TimeoutNotIncreasedError extends VigilError {
  readonly code = 'invalid_request';
  constructor(itemId: string, timeoutSeconds: number, currentSeconds: number) {
    super(
      `increase_timeout with timeoutSeconds ${timeoutSeconds} would not raise item '${itemId}''s time limit, ${currentSeconds} s for a whole attempt (commands included). Nothing was changed: send more than ${currentSeconds}, or answer another option.`,
    );
  }
}
export class PoolConflictError extends VigilError {
  readonly code = 'submission_conflict';
  constructor(poolId: string) {
    super(`Pool '${poolId}' was already created with a different body. Resend the original body, or use a new poolId.`);
  }
}
export class PoolFinishedError extends VigilError {
  readonly code = 'pool_finished';
  constructor(poolId: string, status: string) {
    super(`Pool '${poolId}' is ${status}; it takes no more claims or changes. Create a new pool instead.`);
  }
}
export class SubtaskExistsError extends VigilError {
  readonly code = 'item_exists';
  constructor(poolId: string, itemIds: readonly string[]) {
    super(`Pool '${poolId}' already has item(s) ${itemIds.map((id) => `'${id}'`).join(', ')}; a split's subtasks are new items. Choose subtask ids no item of the pool has.`);
  }
}
export class StaleAttemptError extends VigilError {
  readonly code = 'stale_attempt';
  constructor(itemId: string, attempt: number, latest: number, over: boolean) {
    super(
      over
        ? `Attempt ${attempt} of item '${itemId}' is over; this call was refused and kept in the item's history. Stop working on it and claim again.`
        : `Attempt ${attempt} of item '${itemId}' is stale: attempt ${latest} holds the item now. The call was refused and kept in the item's history; stop working on it.`,
    );
  }
}
export class ClaimEndedError extends VigilError {
  readonly code = 'stale_attempt';
  constructor(claimId: string, itemId: string, attempt: number) {
    super(`Claim '${claimId}' took attempt ${attempt} of item '${itemId}', and that attempt is over. Claim again with a new claimId.`);
  }
}
/** Another request with the same claimId is being answered: its retry gets that answer. */
export class ClaimInFlightError extends VigilError {
  readonly code = 'busy';
  constructor(claimId: string) {
    super(`A claim with claimId '${claimId}' is still being answered. Retry in a moment with the same claimId to get its item.`);
  }
}
export class AttemptTerminatingError extends VigilError {
  readonly code = 'attempt_terminating';
  constructor(itemId: string, attempt: number) {
    super(
      `Attempt ${attempt} of item '${itemId}' was told to terminate; a result is no longer accepted (it is kept in the item's history). Post …/terminated with your partialResult instead.`,
    );
  }
}
export class ItemNotInDlqError extends VigilError {
  readonly code = 'item_not_in_dlq';
  constructor(itemId: string, state: string) {
    super(`Item '${itemId}' is ${state}, not in the DLQ; only dead-lettered items can be retried.`);
  }
}
/** A retry sent again (its item no longer in the DLQ) that asks for another limit than the retry that took it out did. */
export class RetryConflictError extends VigilError {
  readonly code = 'retry_conflict';
  constructor(itemId: string, askedSeconds: number, itemLimitSeconds: number | undefined) {
    const has = itemLimitSeconds === undefined ? "no limit of its own (it keeps the pool's)" : `agentTimeoutSecs ${itemLimitSeconds}`;
    super(
      `Item '${itemId}' was already retried, with ${has}, and is available again; this retry asks for agentTimeoutSecs ${askedSeconds}. Nothing was changed: resend the first retry's body to confirm it, or give the new limit when the item is back in the DLQ.`,
    );
  }
}
export class EscalationNotFoundError extends VigilError {
  readonly code = 'escalation_not_found';
  constructor(escalationId: string) {
    super(`No escalation '${escalationId}'. List pending ones with GET /escalations.`);
  }
}
export class EscalationAnsweredError extends VigilError {
  readonly code = 'escalation_answered';
  constructor(escalationId: string) {
    super(`Escalation '${escalationId}' was already answered; an answer is applied once. List pending ones with GET /escalations.`);
  }
}
export class CollectionNotFoundError extends VigilError {
  readonly code = 'collection_not_found';
  constructor(collectionId: string) {
    super(`No checkpoint collection '${collectionId}' for this pool. Start one with POST …/checkpoints/collect.`);
  }
}
/** A command started again after a later one, or after it finished: each command starts once, in order. */
export class CommandNotStartedError extends VigilError {
  readonly code = 'command_not_started';
  constructor(itemId: string, attempt: number, index: number) {
    super(`Command ${index} of attempt ${attempt} of item '${itemId}' was never started: start it (POST …/commands/${index}/start) before finishing it.`);
  }
}
export class CommandOutOfOrderError extends VigilError {
  readonly code = 'command_out_of_order';
  constructor(itemId: string, attempt: number, index: number, next: number) {
    super(
      `Command ${index} of attempt ${attempt} of item '${itemId}' cannot start now: it was started already, or a later command started before it. Each command starts once, in order (the next may be ${next} or later); nothing was changed. A repeat of the running command's start is answered with its deadline.`,
    );
  }
}
/** A command started while the most an attempt may run at once are running: each keeps its own deadline, so each is kept on the item. */
export class TooManyCommandsRunningError extends VigilError {
  readonly code = 'too_many_commands_running';
  constructor(itemId: string, attempt: number, running: readonly number[]) {
    super(
      `Attempt ${attempt} of item '${itemId}' already has ${running.length} commands running (${running.join(', ')}), the most one attempt may run at once. Nothing was changed: finish one (POST …/commands/{index}/finish) before starting another.`,
    );
  }
}
