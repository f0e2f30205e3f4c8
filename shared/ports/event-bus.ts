import { VigilError } from '../domain/errors.js';

/** An event as it travels on a bus: EventBridge `detail-type`, `source: vigil`, JSON detail. */
export interface BusEvent {
  detailType: string;
  detail: Record<string, unknown>;
}

export interface EventBus {
  /**
   * Publishes on this region's bus. At-least-once; consumers accept duplicates and any order. When
   * only some events went out it throws `EventPublishError` naming the others; any other error: none did.
   */
  publish(events: readonly BusEvent[]): Promise<void>;
}

/** Some events did not go out: `unsent` may on a later try, `refused` never will (their reasons beside them). */
export class EventPublishError extends VigilError {
  readonly code = 'event_publish_failed';

  constructor(
    message: string,
    readonly unsent: readonly BusEvent[] = [],
    readonly refused: ReadonlyArray<{ event: BusEvent; reason: string }> = [],
  ) {
    super(message, { unsent: unsent.map((event) => event.detailType), refused: refused.map(({ event, reason }) => `${event.detailType}: ${reason}`) });
  }
}
