import type { MetricName } from '../../../shared/domain/effects.js';
import type { EpochMs } from '../../../shared/domain/time.js';
import type { Clock } from '../../../shared/ports/clock.js';
import type { BusEvent, EventBus } from '../../../shared/ports/event-bus.js';
import type { Telemetry } from '../../../shared/ports/telemetry.js';
import type { TimerRef, TimerRequest, Timers } from '../../../shared/ports/timers.js';

/** Time moves only when a test moves it. */
export class ManualClock implements Clock {
  constructor(private at: EpochMs) {}
  now(): EpochMs {
    return this.at;
  }
  set(at: EpochMs): void {
    this.at = at;
  }
}

type TimerCall = { kind: 'arm'; timer: TimerRequest } | ({ kind: 'disarm' } & TimerRef);

/** Records what the use cases ask of the scheduler; fires nothing by itself (tests fire by hand). */
export class RecordingTimers implements Timers {
  readonly calls: TimerCall[] = [];

  async arm(timer: TimerRequest): Promise<void> {
    this.calls.push({ kind: 'arm', timer });
  }

  async disarm(timer: TimerRef): Promise<void> {
    this.calls.push({ kind: 'disarm', ...timer });
  }

  armed(jobId: string): TimerRequest[] {
    return this.calls.flatMap((call) => (call.kind === 'arm' && call.timer.jobId === jobId ? [call.timer] : []));
  }

  /** The job's latest armed timer, unless a disarm of its fence token came after it. */
  current(jobId: string): TimerRequest | undefined {
    const disarmed = new Set<number>();
    for (let i = this.calls.length - 1; i >= 0; i--) {
      const call = this.calls[i];
      if (call?.kind === 'arm' && call.timer.jobId === jobId) return disarmed.has(call.timer.fenceToken) ? undefined : call.timer;
      if (call?.kind === 'disarm' && call.jobId === jobId) disarmed.add(call.fenceToken);
    }
    return undefined;
  }

  /** Like `current`, for a job a test knows is armed. */
  expectArmed(jobId: string): TimerRequest {
    const timer = this.current(jobId);
    if (!timer) throw new Error(`no timer is armed for ${jobId}`);
    return timer;
  }
}

/** Records published events; can be told to fail the next publishes (a bus outage). */
export class RecordingBus implements EventBus {
  readonly published: BusEvent[] = [];
  private failuresLeft = 0;
  private readonly refusedJobIds = new Set<string>();

  failNextPublishes(count: number): void {
    this.failuresLeft = count;
  }

  /** Every publish carrying an event of this job fails, for good (an entry the bus always rejects). */
  refuseEventsOf(jobId: string): void {
    this.refusedJobIds.add(jobId);
  }

  async publish(events: readonly BusEvent[]): Promise<void> {
    if (this.failuresLeft > 0) {
      this.failuresLeft--;
      throw new Error('event bus unavailable (injected by the test)');
    }
    const refused = events.find((event) => this.refusedJobIds.has(String(event.detail['jobId'])));
    if (refused) throw new Error(`event bus rejected an event of ${String(refused.detail['jobId'])} (injected by the test)`);
    this.published.push(...events);
  }

  ofType(detailType: string): BusEvent[] {
    return this.published.filter((event) => event.detailType === detailType);
  }
}

export class RecordingTelemetry implements Telemetry {
  readonly logs: Array<{ level: 'info' | 'warn' | 'error'; message: string; attributes?: Record<string, unknown> }> = [];
  readonly metrics: Array<{ name: MetricName; dimensions?: Record<string, string> }> = [];

  info(message: string, attributes?: Record<string, unknown>): void {
    this.logs.push({ level: 'info', message, ...(attributes ? { attributes } : {}) });
  }
  warn(message: string, attributes?: Record<string, unknown>): void {
    this.logs.push({ level: 'warn', message, ...(attributes ? { attributes } : {}) });
  }
  error(message: string, attributes?: Record<string, unknown>): void {
    this.logs.push({ level: 'error', message, ...(attributes ? { attributes } : {}) });
  }
  metric(name: MetricName, dimensions?: Record<string, string>): void {
    this.metrics.push({ name, ...(dimensions ? { dimensions } : {}) });
  }

  count(name: MetricName): number {
    return this.metrics.filter((m) => m.name === name).length;
  }
}
