import type { TimerRequest, Timers } from '../../ports/timers.js';
import { SQS_RETRY } from './delivery.js';
import type { World } from './world.js';

const SQS_MAX_DELAY_MS = 900_000;

/**
 * Durable one-shot wake-ups as AWS delivers them: an SQS delay message (second granularity) within
 * 15 minutes, a Scheduler schedule that hops into the queue for later ones. An armed message always
 * fires — `disarm` cannot withdraw it, as SQS cannot — so every lazy check on arrival is exercised.
 * With the timer-loss rate a wake-up never arrives (only the sweep can save the job); with clock
 * skew one may arrive a few milliseconds before its due time by the clock of the handler it reaches.
 */
export class SimTimers implements Timers {
  constructor(
    private readonly world: World,
    private readonly node: string,
    private readonly fire: (timer: TimerRequest) => Promise<void>,
  ) {}

  async arm(timer: TimerRequest): Promise<void> {
    const world = this.world;
    world.invocations.crashPoint(this.node);
    const untilDueMs = Math.max(0, timer.dueAt - world.now);
    world.calls.sqsRequests++;
    if (untilDueMs > SQS_MAX_DELAY_MS) world.calls.schedulerInvocations++;
    if (world.rng.chance(world.plan.rates.timerLoss)) {
      world.log(`${this.node} timer for ${timer.jobId} lost`);
      return;
    }
    const deliverAt = world.now + Math.ceil(untilDueMs / 1000) * 1000 + world.rng.int(0, 1_000) - world.wakeUpSkewMs();
    world.at(deliverAt, `timer ${this.node} ${timer.jobId}`, async () => {
      world.calls.sqsRequests += 2; // receive + delete
      world.log(`${this.node} wake-up ${timer.scope} ${timer.jobId} fence ${timer.fenceToken} due ${timer.dueAt}`);
      await world.invoke(this.node, 'fire-timer', () => this.fire(timer), SQS_RETRY);
    });
  }

  /** A crash point too: the effect runner catches a failed withdrawal, but a dead invocation stays dead. */
  async disarm(): Promise<void> {
    this.world.invocations.crashPoint(this.node);
  }
}
