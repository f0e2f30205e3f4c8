import { GATE, routeOf } from '../../adapters/local/event-routes.js';
import type { BusEvent, EventBus } from '../../ports/event-bus.js';
import { ASYNC_EVENT_RETRY, UNREACHABLE_RETRY_MS } from './delivery.js';
import type { World } from './world.js';

export class BusUnavailable extends Error {
  constructor(node: string) {
    super(`the event bus of ${node} is unavailable`);
    this.name = 'BusUnavailable';
  }
}

/** Where a routed event is consumed: the gate's report handler or a region's decision handler. */
export type Consumer = (event: BusEvent) => Promise<void>;

/**
 * One node's bus with the deployed forwarding rules (`routeOf`), delivering at least once: with the
 * plan's rates an event is dropped and redelivered minutes later, duplicated, delayed or reordered;
 * a target that is cut off or down gets it when it is back (EventBridge retries for 24 h).
 */
export class SimBus implements EventBus {
  constructor(
    private readonly world: World,
    private readonly node: string,
    private readonly consumers: Map<string, Consumer>,
  ) {}

  async publish(events: readonly BusEvent[]): Promise<void> {
    const world = this.world;
    world.invocations.crashPoint(this.node);
    if (world.busDown(this.node)) throw new BusUnavailable(this.node);
    for (const event of events) {
      world.calls.eventBridgeEvents++;
      const target = routeOf(event);
      if (target === undefined) continue;
      // Forwarded by a rule to the target's own bus: billed again as an event there, within one region too.
      if (target !== this.node) world.calls.forwardedEvents++;
      const rates = world.plan.rates;
      const copies = world.rng.chance(rates.duplicate) ? 2 : 1;
      for (let copy = 0; copy < copies; copy++) {
        let delayMs = world.rng.int(20, 300);
        if (world.rng.chance(rates.reorder)) delayMs += world.rng.int(0, 5_000);
        if (world.rng.chance(rates.delay)) delayMs += world.rng.int(1_000, 90_000);
        if (world.rng.chance(rates.drop)) delayMs += world.rng.int(60_000, 300_000);
        world.after(delayMs, `deliver ${event.detailType} ${String(event.detail['jobId'])} ${this.node}→${target}`, () => this.deliver(event, target));
      }
    }
  }

  private async deliver(event: BusEvent, target: string): Promise<void> {
    const world = this.world;
    const region = target === GATE ? this.node : target;
    const unreachable = (target === GATE && world.gateDown()) || world.severed(region) || (this.node === GATE && world.gateDown());
    if (unreachable) {
      world.after(UNREACHABLE_RETRY_MS, `redeliver ${event.detailType} to ${target}`, () => this.deliver(event, target));
      return;
    }
    const consume = this.consumers.get(target);
    if (!consume) return;
    world.log(`${target} receives ${event.detailType} ${JSON.stringify(event.detail)}`);
    await world.invoke(target, 'on-event', () => consume(event), ASYNC_EVENT_RETRY);
  }
}
