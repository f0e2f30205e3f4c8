import {
  ConflictException,
  CreateScheduleCommand,
  DeleteScheduleCommand,
  ResourceNotFoundException,
  SchedulerClient,
  UpdateScheduleCommand,
  type CreateScheduleCommandInput,
} from '@aws-sdk/client-scheduler';
import { SendMessageCommand, SQSClient } from '@aws-sdk/client-sqs';
import { mockClient } from 'aws-sdk-client-mock';
import { afterAll, beforeEach } from 'vitest';
import { createSqsSchedulerTimers } from '../../shared/adapters/aws/sqs-scheduler-timers.js';
import { parseTimerMessage } from '../../shared/adapters/aws/timer-message.js';
import type { EpochMs } from '../../shared/domain/time.js';
import type { TimerRequest, Timers } from '../../shared/ports/timers.js';

export const SCHEDULER_CLOUD_CONFIG = {
  timerQueueUrl: 'https://sqs.eu-west-1.amazonaws.com/123456789012/vigil-timers',
  timerQueueArn: 'arn:aws:sqs:eu-west-1:123456789012:vigil-timers',
  scheduleGroupName: 'vigil-timers',
  schedulerRoleArn: 'arn:aws:iam::123456789012:role/vigil-scheduler',
  schedulerDlqArn: 'arn:aws:sqs:eu-west-1:123456789012:vigil-scheduler-dlq',
};

type SettableClock = { now(): EpochMs; set(at: EpochMs): void };

const awsError = (message: string) => ({ $metadata: {}, message, Message: message });

/** `at(yyyy-mm-ddThh:mm:ss)` in UTC, back to epoch milliseconds. */
const atTime = (expression: string | undefined): EpochMs => Date.parse(`${String(expression).slice(3, -1)}Z`);

/**
 * SQS and EventBridge Scheduler as the AWS timers adapter meets them, in memory: a schedule is one
 * per name (Create refuses a name that exists, Update replaces the whole schedule, both last writer
 * wins), and at its time it puts its message on the queue and deletes itself; a message is delivered
 * once its delay has passed. Nothing fires on its own: `deliverUntil` moves the clock and delivers.
 */
export class SchedulerCloud {
  readonly schedules = new Map<string, CreateScheduleCommandInput>();
  private messages: Array<{ body: string; visibleAt: EpochMs }> = [];
  private clock: SettableClock = { now: () => 0, set: () => undefined };

  /** The AWS adapter over this cloud, on `clock` (the one `deliverUntil` moves). */
  timers(clock: SettableClock): Timers {
    this.clock = clock;
    return createSqsSchedulerTimers({
      sqs: new SQSClient({ region: 'eu-west-1' }),
      scheduler: new SchedulerClient({ region: 'eu-west-1' }),
      clock: this.clock,
      config: SCHEDULER_CLOUD_CONFIG,
    });
  }

  /** The wake-ups the schedules would send, as stored now. */
  scheduled(): TimerRequest[] {
    return [...this.schedules.values()].map((input) => parseTimerMessage(String(input.Target?.Input)));
  }

  /** Delivers every schedule and message due by `until`, earliest first, with the clock at its moment. */
  async deliverUntil(until: EpochMs, fire: (timer: TimerRequest) => Promise<void>): Promise<void> {
    for (;;) {
      const schedule = [...this.schedules.entries()].sort(([, a], [, b]) => atTime(a.ScheduleExpression) - atTime(b.ScheduleExpression))[0];
      const scheduleAt = schedule ? atTime(schedule[1].ScheduleExpression) : Infinity;
      const message = [...this.messages].sort((a, b) => a.visibleAt - b.visibleAt)[0];
      const messageAt = message ? message.visibleAt : Infinity;
      const next = Math.min(scheduleAt, messageAt);
      if (next > until) break;
      if (next > this.clock.now()) this.clock.set(next);
      if (schedule && scheduleAt <= messageAt) {
        this.schedules.delete(schedule[0]);
        this.messages.push({ body: String(schedule[1].Target?.Input), visibleAt: this.clock.now() });
        continue;
      }
      if (!message) break;
      this.messages = this.messages.filter((m) => m !== message);
      await fire(parseTimerMessage(message.body));
    }
    if (until > this.clock.now()) this.clock.set(until);
  }

  install(): void {
    const scheduler = mockClient(SchedulerClient);
    const sqs = mockClient(SQSClient);
    beforeEach(() => {
      this.schedules.clear();
      this.messages = [];
      scheduler.reset();
      sqs.reset();
      scheduler.on(CreateScheduleCommand).callsFake((input: CreateScheduleCommandInput) => {
        if (this.schedules.has(String(input.Name))) throw new ConflictException(awsError('exists'));
        this.schedules.set(String(input.Name), input);
        return { ScheduleArn: `arn:${input.Name}` };
      });
      scheduler.on(UpdateScheduleCommand).callsFake((input: CreateScheduleCommandInput) => {
        if (!this.schedules.has(String(input.Name))) throw new ResourceNotFoundException(awsError('gone'));
        this.schedules.set(String(input.Name), input);
        return { ScheduleArn: `arn:${input.Name}` };
      });
      scheduler.on(DeleteScheduleCommand).callsFake((input: { Name?: string }) => {
        if (!this.schedules.delete(String(input.Name))) throw new ResourceNotFoundException(awsError('gone'));
        return {};
      });
      sqs.on(SendMessageCommand).callsFake((input: { MessageBody?: string; DelaySeconds?: number }) => {
        this.messages.push({ body: String(input.MessageBody), visibleAt: this.clock.now() + (input.DelaySeconds ?? 0) * 1000 });
        return { MessageId: String(this.messages.length) };
      });
    });
    // The domain and app tiers share modules between files: the real clients come back for the next file.
    afterAll(() => {
      scheduler.restore();
      sqs.restore();
    });
  }
}

/** A `Timers` whose first arm matching `when` lands only after `before` has run (a slow Lambda's call). */
export function armingLateOnce(inner: Timers, when: (timer: TimerRequest) => boolean, before: () => Promise<unknown>): Timers {
  let pending: (() => Promise<unknown>) | undefined = before;
  return {
    async arm(timer) {
      if (pending && when(timer)) {
        const run = pending;
        pending = undefined;
        await run();
      }
      await inner.arm(timer);
    },
    disarm: (...args) => inner.disarm(...args),
  };
}
