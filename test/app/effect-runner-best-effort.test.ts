import { describe, expect, it } from 'vitest';
import { runEffects } from '../../shared/app/effect-runner.js';
import { metric, publish, type Effect } from '../../shared/domain/effects.js';
import type { BusEvent } from '../../shared/ports/event-bus.js';
import type { TimerRef, TimerRequest } from '../../shared/ports/timers.js';
import { RecordingBus, RecordingTelemetry, RecordingTimers } from './support/recording-ports.js';

const event: BusEvent = { detailType: 'JobTimedOut', detail: { jobId: 'job-1' } };
const timer: TimerRequest = { scope: 'job', jobId: 'job-2', fenceToken: 1, dueAt: 1_000 };
const disarm: Effect = { type: 'DisarmTimer', timer: { scope: 'job', jobId: 'job-1', fenceToken: 1 } };

/** Timers whose disarm and arm answer as the test says; every call is recorded in `order`. */
class ScriptedTimers extends RecordingTimers {
  constructor(
    readonly order: string[],
    private readonly answers: { disarm?: () => Promise<void>; arm?: () => Promise<void> },
  ) {
    super();
  }
  override async arm(request: TimerRequest): Promise<void> {
    this.order.push(`arm ${request.jobId}`);
    await this.answers.arm?.();
    await super.arm(request);
  }
  override async disarm({ jobId }: TimerRef): Promise<void> {
    this.order.push(`disarm ${jobId}`);
    await this.answers.disarm?.();
    this.order.push(`disarmed ${jobId}`);
  }
}

function ports(timers: RecordingTimers, order: string[], afterPublish: () => void = () => undefined) {
  const bus = new RecordingBus();
  const publishing = bus.publish.bind(bus);
  bus.publish = async (events) => {
    order.push('publish');
    await publishing(events);
    afterPublish();
  };
  return { timers, bus, telemetry: new RecordingTelemetry() };
}

describe('runEffects: withdrawing a timer is best effort, arming one is not', () => {
  it('a disarm that fails is logged and counted; the effects after it and the publish still run, and the call succeeds', async () => {
    // Prepare
    const order: string[] = [];
    const p = ports(new ScriptedTimers(order, { disarm: () => Promise.reject(new Error('ThrottlingException: Rate exceeded')) }), order);
    // Act
    await runEffects(p, [disarm, { type: 'ArmTimer', timer }, metric('JobFinished', { status: 'CANCELLED' }), publish(event)]);
    // Assess
    expect(order).toEqual(['disarm job-1', 'arm job-2', 'publish']);
    expect(p.bus.published).toEqual([event]);
    expect(p.telemetry.metrics).toHaveLength(2);
    expect(p.telemetry.metrics).toEqual(expect.arrayContaining([{ name: 'JobFinished', dimensions: { status: 'CANCELLED' } }, { name: 'TimerDisarmFailed', dimensions: { scope: 'job' } }]));
    expect(p.telemetry.logs).toEqual([
      { level: 'warn', message: 'timer not withdrawn; its wake-up is dropped when it comes', attributes: { scope: 'job', jobId: 'job-1', fenceToken: 1, error: 'Error: ThrottlingException: Rate exceeded' } },
    ]);
  });

  it('the publish does not wait for a disarm: one answered only after the publish still lets the call end', async () => {
    // Prepare: the disarm answers once the event is out (were the publish to wait for it, neither would come)
    const order: string[] = [];
    let published: () => void = () => undefined;
    const eventOut = new Promise<void>((resolve) => (published = resolve));
    const p = ports(new ScriptedTimers(order, { disarm: () => eventOut }), order, () => published());
    // Act
    await runEffects(p, [disarm, publish(event)]);
    // Assess: the call ended only once the disarm was answered
    expect(order).toEqual(['disarm job-1', 'publish', 'disarmed job-1']);
  });

  it('an arm that fails fails the call and nothing is published: the stored wake-up (index entry) and the sweep bring it', async () => {
    // Prepare
    const order: string[] = [];
    const p = ports(new ScriptedTimers(order, { arm: () => Promise.reject(new Error('AccessDenied')) }), order);
    // Act
    const outcome = runEffects(p, [disarm, { type: 'ArmTimer', timer }, publish(event)]);
    // Assess
    await expect(outcome).rejects.toThrow('AccessDenied');
    expect(order).toEqual(['disarm job-1', 'arm job-2', 'disarmed job-1']);
    expect(p.bus.published).toEqual([]);
  });
});
