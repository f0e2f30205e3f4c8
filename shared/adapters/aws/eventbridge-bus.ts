import {
  PutEventsCommand,
  type EventBridgeClient,
  type PutEventsRequestEntry,
  type PutEventsResultEntry,
} from '@aws-sdk/client-eventbridge';
import { EVENT_SOURCE } from '../../events/event-contract.js';
import { EventPublishError, type BusEvent, type EventBus } from '../../ports/event-bus.js';

export { EventPublishError };

/** PutEvents accepts at most 10 entries per call. */
export const PUT_EVENTS_MAX_ENTRIES = 10;

export interface EventBridgeBusDeps {
  client: EventBridgeClient;
  eventBusName: string;
  /** Attempts per chunk, the first included. */
  maxAttempts?: number;
  /** Delay before the first retry; doubles on each further retry. */
  retryBaseDelayMs?: number;
}

/**
 * EventBridge's PutEventsResultEntry: only these per-entry errors can succeed on a later try; the
 * others (AccessDeniedException, MalformedDetail, NotAuthorizedForDetailTypeException, …) never will.
 */
const RETRYABLE_ENTRY_ERRORS = new Set(['InternalFailure', 'ThrottlingException']);

/**
 * EventBus on EventBridge. PutEvents succeeds as a call even when some entries fail
 * (`FailedEntryCount`, e.g. throttling), so each chunk's retryable failures are retried on their
 * own, every chunk is offered whatever the one before met, and the publish throws what did not go
 * out: still failing after the last attempt, or refused for good.
 */
export function createEventBridgeBus({
  client,
  eventBusName,
  maxAttempts = 4,
  retryBaseDelayMs = 100,
}: EventBridgeBusDeps): EventBus {
  const toEntry = (event: BusEvent): PutEventsRequestEntry => ({
    EventBusName: eventBusName,
    Source: EVENT_SOURCE,
    DetailType: event.detailType,
    Detail: JSON.stringify(event.detail),
  });

  async function putWithRetries(events: readonly BusEvent[], refused: Array<{ event: BusEvent; reason: string }>, stillFailing: Set<string>): Promise<BusEvent[]> {
    let pending = [...events];
    for (let attempt = 1; attempt <= maxAttempts && pending.length > 0; attempt++) {
      if (attempt > 1) await delay(retryBaseDelayMs * 2 ** (attempt - 2));
      const result = await client.send(new PutEventsCommand({ Entries: pending.map(toEntry) }));
      if (!result.FailedEntryCount) return [];
      const results = result.Entries ?? [];
      const failed = pending.flatMap((event, index) => (accepted(results[index]) ? [] : [{ event, result: results[index] ?? {} }]));
      pending = [];
      for (const { event, result: entry } of failed) {
        const reason = `${entry.ErrorCode ?? 'unknown'}: ${entry.ErrorMessage ?? ''}`;
        if (entry.ErrorCode !== undefined && !RETRYABLE_ENTRY_ERRORS.has(entry.ErrorCode)) {
          refused.push({ event, reason });
          continue;
        }
        pending.push(event);
        if (attempt === maxAttempts) stillFailing.add(reason);
      }
    }
    return pending;
  }

  return {
    async publish(events) {
      const unsent: BusEvent[] = [];
      const refused: Array<{ event: BusEvent; reason: string }> = [];
      const stillFailing = new Set<string>();
      for (let start = 0; start < events.length; start += PUT_EVENTS_MAX_ENTRIES) {
        const chunk = events.slice(start, start + PUT_EVENTS_MAX_ENTRIES);
        try {
          unsent.push(...(await putWithRetries(chunk, refused, stillFailing)));
        } catch (error) {
          // The call itself failed (after the SDK's own retries): the bus is out of reach; the rest waits too.
          if (start === 0) throw error;
          unsent.push(...events.slice(start));
          break;
        }
      }
      if (unsent.length === 0 && refused.length === 0) return;
      throw new EventPublishError(
        [
          `EventBridge rejected ${unsent.length + refused.length} event(s) on bus '${eventBusName}'`,
          unsent.length > 0 ? ` after ${maxAttempts} attempts (${[...stillFailing].join('; ')})` : '',
          refused.length > 0 ? `; ${refused.length} refused for good (${[...new Set(refused.map(({ reason }) => reason))].join('; ')})` : '',
        ].join(''),
        unsent,
        refused,
      );
    },
  };
}

/** Result entries line up with request entries by index; an entry without an EventId did not go out. */
const accepted = (result: PutEventsResultEntry | undefined): boolean => result?.EventId !== undefined && result.ErrorCode === undefined;

const delay = (ms: number): Promise<void> => new Promise((resolve) => setTimeout(resolve, ms));
