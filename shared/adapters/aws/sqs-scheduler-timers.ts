import {
  CreateScheduleCommand,
  DeleteScheduleCommand,
  UpdateScheduleCommand,
  type CreateScheduleCommandInput,
  type SchedulerClient,
} from '@aws-sdk/client-scheduler';
import { SendMessageCommand, type SQSClient } from '@aws-sdk/client-sqs';
import { setTimeout as sleep } from 'node:timers/promises';
import type { Clock } from '../../ports/clock.js';
import type { TimerRequest, Timers } from '../../ports/timers.js';
import { isAwsError } from './aws-error.js';
import { scheduleNameFor } from './schedule-name.js';
import { atExpression } from './scheduler-at-expression.js';
import { timerMessageBody } from './timer-message.js';

/** SQS caps DelaySeconds at 15 minutes. */
export const SQS_MAX_DELAY_SECONDS = 900;
const SQS_DELAY_HORIZON_MS = SQS_MAX_DELAY_SECONDS * 1000;
/** Scheduler fires within about a minute of its time; landing early keeps the SQS hop in front of the due time. */
export const SCHEDULE_LEAD_MS = 3 * 60_000;

/**
 * Scheduler answers ConflictException to an update or delete while another call changes the same
 * schedule (two invocations re-arming one job), and the SDK does not retry it: the adapter does, a
 * few times, after a short pause that grows.
 */
const SCHEDULE_ATTEMPTS = 4;
const CONFLICT_PAUSE_MS = 100;
const pauseAfterConflict = (attempt: number) => sleep(CONFLICT_PAUSE_MS * attempt * (1 + Math.random()));

export interface SqsSchedulerTimersConfig {
  timerQueueUrl: string;
  timerQueueArn: string;
  scheduleGroupName: string;
  schedulerRoleArn: string;
  schedulerDlqArn: string;
}

export interface SqsSchedulerTimersDeps {
  sqs: SQSClient;
  scheduler: SchedulerClient;
  clock: Clock;
  config: SqsSchedulerTimersConfig;
}

export function sqsDelaySecondsFor(untilDueMs: number): number {
  return Math.min(Math.max(Math.ceil(untilDueMs / 1000), 0), SQS_MAX_DELAY_SECONDS);
}

/**
 * Timers on AWS with second precision: a timer due within 15 minutes is an SQS message with
 * DelaySeconds; a later one is a one-time schedule that puts the same message on the same queue
 * a few minutes early. The consumer then finds the job not due yet and re-arms, which takes the
 * SQS delay path, so no hop Lambda sits between Scheduler and the queue.
 */
export function createSqsSchedulerTimers({ sqs, scheduler, clock, config }: SqsSchedulerTimersDeps): Timers {
  async function sendDelayed(timer: TimerRequest, untilDueMs: number): Promise<void> {
    await sqs.send(
      new SendMessageCommand({
        QueueUrl: config.timerQueueUrl,
        MessageBody: timerMessageBody(timer),
        DelaySeconds: sqsDelaySecondsFor(untilDueMs),
      }),
    );
  }

  async function upsertSchedule(timer: TimerRequest): Promise<void> {
    // UpdateSchedule replaces every field, so create and update send the same complete input.
    const input: CreateScheduleCommandInput = {
      Name: scheduleNameFor(timer),
      GroupName: config.scheduleGroupName,
      ScheduleExpression: atExpression(timer.dueAt - SCHEDULE_LEAD_MS),
      ScheduleExpressionTimezone: 'UTC',
      FlexibleTimeWindow: { Mode: 'OFF' },
      ActionAfterCompletion: 'DELETE',
      Target: {
        Arn: config.timerQueueArn,
        RoleArn: config.schedulerRoleArn,
        Input: timerMessageBody(timer),
        DeadLetterConfig: { Arn: config.schedulerDlqArn },
      },
    };
    for (let attempt = 1; ; attempt++) {
      try {
        await scheduler.send(new CreateScheduleCommand(input));
        return;
      } catch (error) {
        if (!isAwsError(error, 'ConflictException')) throw error;
      }
      try {
        await scheduler.send(new UpdateScheduleCommand(input));
        return;
      } catch (error) {
        // The old schedule can fire and delete itself between our Create and Update: create again.
        const gone = isAwsError(error, 'ResourceNotFoundException');
        const busy = isAwsError(error, 'ConflictException');
        if (!(gone || busy) || attempt >= SCHEDULE_ATTEMPTS) throw error;
        if (busy) await pauseAfterConflict(attempt);
      }
    }
  }

  return {
    async arm(timer) {
      const untilDueMs = timer.dueAt - clock.now();
      if (untilDueMs <= SQS_DELAY_HORIZON_MS) await sendDelayed(timer, untilDueMs);
      else await upsertSchedule(timer);
    },

    async disarm(timer, armedAtMostMsAhead) {
      // Only the schedule can be withdrawn: a delayed SQS message cannot, and is dropped by the lazy check.
      // A timer never armed past the SQS range never had a schedule (an outbox retry is at most
      // RETRY_CAP_MS ahead, within it too): DeleteSchedule, with a rate quota of its own, is not asked.
      if (armedAtMostMsAhead !== undefined && armedAtMostMsAhead <= SQS_DELAY_HORIZON_MS) return;
      for (let attempt = 1; ; attempt++) {
        try {
          await scheduler.send(new DeleteScheduleCommand({ Name: scheduleNameFor(timer), GroupName: config.scheduleGroupName }));
          return;
        } catch (error) {
          if (isAwsError(error, 'ResourceNotFoundException')) return;
          if (!isAwsError(error, 'ConflictException') || attempt >= SCHEDULE_ATTEMPTS) throw error;
          await pauseAfterConflict(attempt);
        }
      }
    },
  };
}
