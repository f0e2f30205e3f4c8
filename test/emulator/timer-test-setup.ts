import { CreateScheduleGroupCommand, SchedulerClient } from '@aws-sdk/client-scheduler';
import { SQSClient } from '@aws-sdk/client-sqs';
import type { EpochMs } from '../../shared/domain/time.js';
import type { Clock } from '../../shared/ports/clock.js';
import type { Timers } from '../../shared/ports/timers.js';
import { createSqsSchedulerTimers, type SqsSchedulerTimersConfig } from '../../shared/adapters/aws/sqs-scheduler-timers.js';
import { createTestQueue, uniqueName, type TestQueue } from '../support/aws-test-resources.js';
import type { EmulatorClientConfig } from '../support/emulator.js';

export interface TimerFixture {
  timers: Timers;
  sqs: SQSClient;
  scheduler: SchedulerClient;
  queue: TestQueue;
  config: SqsSchedulerTimersConfig;
  /** The adapter's clock: tests move it instead of waiting. */
  clock: Clock & { set(at: EpochMs): void };
}

/** A timer queue, a scheduler DLQ and a schedule group of their own, and the adapter wired to them. */
export async function timerFixture(clientConfig: EmulatorClientConfig, now: EpochMs): Promise<TimerFixture> {
  const sqs = new SQSClient(clientConfig);
  const scheduler = new SchedulerClient(clientConfig);
  const queue = await createTestQueue(sqs, 'vigil-timers');
  const dlq = await createTestQueue(sqs, 'vigil-scheduler-dlq');
  const scheduleGroupName = uniqueName('vigil-timers');
  await scheduler.send(new CreateScheduleGroupCommand({ Name: scheduleGroupName }));
  const config: SqsSchedulerTimersConfig = {
    timerQueueUrl: queue.url,
    timerQueueArn: queue.arn,
    scheduleGroupName,
    schedulerRoleArn: `arn:aws:iam::123456789012:role/${uniqueName('vigil-scheduler')}`,
    schedulerDlqArn: dlq.arn,
  };
  let current = now;
  const clock = { now: () => current, set: (at: EpochMs) => void (current = at) };
  return { timers: createSqsSchedulerTimers({ sqs, scheduler, clock, config }), sqs, scheduler, queue, config, clock };
}
