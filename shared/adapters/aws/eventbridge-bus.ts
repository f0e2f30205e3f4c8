import {
  PutEventsCommand,
  type EventBridgeClient,
  type PutEventsRequestEntry,
  type PutEventsResultEntry,
} from '@aws-sdk/client-eventbridge';
import { VigilError } from '../../domain/errors.js';
import { EVENT_SOURCE } from '../../events/event-contract.js';
import type { BusEvent, EventBus } from '../../ports/event-bus.js';

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

export class EventPublishError extends VigilError {
  readonly code = 'event_publish_failed';
}

/**
 * EventBus on EventBridge. PutEvents succeeds as a call even when some entries fail
 * (`FailedEntryCount`, e.g. throttling), so failed entries are retried on their own and the
 * publish throws if any are still failing after the last attempt.
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

  async function putWithRetries(entries: PutEventsRequestEntry[]): Promise<void> {
    let pending = entries;
    let lastFailures: PutEventsResultEntry[] = [];
    for (let attempt = 1; attempt <= maxAttempts; attempt++) {
      if (attempt > 1) await delay(retryBaseDelayMs * 2 ** (attempt - 2));
      const result = await client.send(new PutEventsCommand({ Entries: pending }));
      if (!result.FailedEntryCount) return;
      const failed = failedEntries(pending, result.Entries ?? []);
      if (failed.length === 0) return;
      pending = failed.map(({ entry }) => entry);
      lastFailures = failed.map(({ result: entryResult }) => entryResult);
    }
    const codes = [...new Set(lastFailures.map((f) => `${f.ErrorCode ?? 'unknown'}: ${f.ErrorMessage ?? ''}`))];
    throw new EventPublishError(
      `EventBridge rejected ${pending.length} event(s) on bus '${eventBusName}' after ${maxAttempts} attempts (${codes.join('; ')})`,
      { detailTypes: pending.map((entry) => entry.DetailType), failures: lastFailures },
    );
  }

  return {
    async publish(events) {
      for (let start = 0; start < events.length; start += PUT_EVENTS_MAX_ENTRIES) {
        await putWithRetries(events.slice(start, start + PUT_EVENTS_MAX_ENTRIES).map(toEntry));
      }
    },
  };
}

/** Result entries line up with request entries by index; an entry without an EventId did not go out. */
function failedEntries(
  entries: PutEventsRequestEntry[],
  results: PutEventsResultEntry[],
): Array<{ entry: PutEventsRequestEntry; result: PutEventsResultEntry }> {
  return entries.flatMap((entry, index) => {
    const result = results[index] ?? {};
    return result.EventId && !result.ErrorCode ? [] : [{ entry, result }];
  });
}

const delay = (ms: number): Promise<void> => new Promise((resolve) => setTimeout(resolve, ms));
