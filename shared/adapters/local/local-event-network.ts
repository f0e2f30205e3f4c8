import { randomUUID } from 'node:crypto';
import { EVENT_SOURCE } from '../../events/event-contract.js';
import type { BusEvent, EventBus } from '../../ports/event-bus.js';
import type { Scheduler } from '../../ports/scheduler.js';
import { GATE, routeOf } from './event-routes.js';
import { noFaults, type NetworkFaults } from './network-faults.js';
import { RecentWindow } from './recent-window.js';
import { systemScheduler } from './system-scheduler.js';

/** What a consumer receives: the EventBridge event shape the Lambda handlers parse. */
export interface DeliveredEvent {
  id: string;
  source: string;
  'detail-type': string;
  detail: Record<string, unknown>;
  region: string;
  time: string;
  account: string;
  version: string;
  resources: string[];
}

export type Consumer = (event: DeliveredEvent) => Promise<void>;

/** A consumer that failed on a delivery: what the deployed system logs as the function's error, and at `givenUp` dead-letters. */
export interface DeliveryFailure {
  origin: string;
  target: string;
  event: DeliveredEvent;
  /** 1 for the first delivery. */
  attempt: number;
  error: unknown;
  /** The last attempt: the event is dropped (deployed, it would land in the consumer's alarmed DLQ). */
  givenUp: boolean;
}

export interface PublishedEvent {
  origin: string;
  event: BusEvent;
  at: number;
}

const MAX_DELIVERY_ATTEMPTS = 10;
/** Enough for every test and bench run to see its own events; a long `npm start` keeps only the latest. */
const DEFAULT_RECENT_EVENTS = 20_000;
const RETRY_DELAY_MS = 1_000;

/**
 * The cross-region buses of the embedded local cloud, in one process: at-least-once delivery along
 * the same routes as the deployed bus rules, a consumer failure retried like EventBridge retries a
 * target, and injectable faults. Every published event is counted, and the most recent ones kept, for
 * tests and benchmarks.
 */
export class LocalEventNetwork {
  private readonly consumers = new Map<string, Consumer>();
  /** Deliveries and retries waiting on the scheduler, withdrawn on close. */
  private readonly waiting = new Set<() => void>();
  private closed = false;
  private readonly recent: RecentWindow<PublishedEvent>;
  private readonly scheduler: Scheduler;
  private readonly onDeliveryFailed: (failure: DeliveryFailure) => void;
  faults: NetworkFaults = noFaults();

  constructor(
    private readonly random: () => number = Math.random,
    {
      recentEventsCapacity = DEFAULT_RECENT_EVENTS,
      scheduler = systemScheduler(),
      onDeliveryFailed = () => undefined,
    }: { recentEventsCapacity?: number; scheduler?: Scheduler; onDeliveryFailed?: (failure: DeliveryFailure) => void } = {},
  ) {
    this.recent = new RecentWindow(recentEventsCapacity, ({ event }) => event.detailType);
    this.scheduler = scheduler;
    this.onDeliveryFailed = onDeliveryFailed;
  }

  /** The most recently published events, oldest first (a bounded window). */
  get published(): PublishedEvent[] {
    return this.recent.items();
  }

  /** How many events of each detail-type were ever published. */
  publishedCounts(): Record<string, number> {
    return this.recent.counts();
  }

  /** `endpoint` is a region name or `gate`. */
  consume(endpoint: string, consumer: Consumer): void {
    this.consumers.set(endpoint, consumer);
  }

  busFor(origin: string): EventBus {
    return {
      publish: async (events) => {
        // Refused, not taken and dropped: the sender keeps the events in its outbox, and its retry
        // (armed in the store) sends them after the restart.
        if (this.closed) throw new Error('The local event network is closed (Vigil is stopping); the events stay in their outbox for the restart.');
        for (const event of events) {
          this.recent.add({ origin, event, at: this.scheduler.now() });
          const target = routeOf(event);
          if (target !== undefined) this.send(origin, target, event);
        }
      },
    };
  }

  /**
   * Drops everything still in flight and refuses every publish from then on (an orderly shutdown; a
   * sender whose publish fails keeps its outbox, so at-least-once resumes from the senders).
   */
  close(): void {
    this.closed = true;
    for (const withdraw of this.waiting) withdraw();
    this.waiting.clear();
  }

  /** True while a fault cuts the link between the two endpoints. */
  isSevered(origin: string, target: string): boolean {
    const { gateDown, cutOff } = this.faults;
    if (origin === GATE || target === GATE) {
      if (gateDown) return true;
      const region = origin === GATE ? target : origin;
      return cutOff.includes(region);
    }
    return false;
  }

  private send(origin: string, target: string, event: BusEvent): void {
    const delivered: DeliveredEvent = {
      id: randomUUID(),
      source: EVENT_SOURCE,
      'detail-type': event.detailType,
      detail: event.detail,
      region: target,
      time: new Date(this.scheduler.now()).toISOString(),
      account: '000000000000',
      version: '0',
      resources: [],
    };
    const copies = this.random() < this.faults.duplicateRate ? 2 : 1;
    for (let copy = 0; copy < copies; copy++) {
      const dropped = this.random() < this.faults.dropRate;
      this.later(this.delay() + (dropped ? this.faults.redeliveryMs : 0), () => this.deliver(origin, target, delivered, 1));
    }
  }

  private delay(): number {
    const [min, max] = this.faults.delayMs;
    return min + Math.floor(this.random() * Math.max(0, max - min + 1));
  }

  /** Settles when the consumer has handled the event (or failed and its retry is scheduled). */
  private async deliver(origin: string, target: string, event: DeliveredEvent, attempt: number): Promise<void> {
    // A partition is checked on arrival: what was on the wire when the link went down is lost.
    if (this.isSevered(origin, target)) return;
    const consumer = this.consumers.get(target);
    if (!consumer) return;
    await consumer(event).catch((error: unknown) => {
      const givenUp = attempt >= MAX_DELIVERY_ATTEMPTS;
      this.onDeliveryFailed({ origin, target, event, attempt, error, givenUp });
      if (!givenUp) this.later(RETRY_DELAY_MS, () => this.deliver(origin, target, event, attempt + 1));
    });
  }

  private later(ms: number, run: () => Promise<void>): void {
    // After close, nothing is delivered or retried: a handler still running must not reach the next cloud.
    if (this.closed) return;
    const withdraw = this.scheduler.schedule(this.scheduler.now() + ms, () => {
      this.waiting.delete(withdraw);
      return run();
    });
    this.waiting.add(withdraw);
  }
}
