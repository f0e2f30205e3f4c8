/** An event as it travels on a bus: EventBridge `detail-type`, `source: vigil`, JSON detail. */
export interface BusEvent {
  detailType: string;
  detail: Record<string, unknown>;
}

export interface EventBus {
  /** Publishes on this region's bus. At-least-once; consumers accept duplicates and any order. */
  publish(events: readonly BusEvent[]): Promise<void>;
}
