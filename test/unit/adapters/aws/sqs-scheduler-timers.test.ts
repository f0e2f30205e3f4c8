import {
  ConflictException,
  CreateScheduleCommand,
  DeleteScheduleCommand,
  ResourceNotFoundException,
  SchedulerClient,
  ThrottlingException,
  UpdateScheduleCommand,
  ValidationException,
} from '@aws-sdk/client-scheduler';
import { SendMessageCommand, SQSClient } from '@aws-sdk/client-sqs';
import { mockClient } from 'aws-sdk-client-mock';
import { afterAll, beforeEach, describe, expect, it } from 'vitest';
import { SCHEDULE_NAME_PATTERN, scheduleNameFor } from '../../../../shared/adapters/aws/schedule-name.js';
import { atExpression } from '../../../../shared/adapters/aws/scheduler-at-expression.js';
import { createSqsSchedulerTimers, SQS_MAX_DELAY_SECONDS, sqsDelaySecondsFor } from '../../../../shared/adapters/aws/sqs-scheduler-timers.js';
import { RETRY_CAP_MS } from '../../../../shared/app/retry-backoff.js';

const NOW = Date.UTC(2031, 0, 15, 10, 0, 0, 0);
const config = {
  timerQueueUrl: 'https://sqs.eu-west-1.amazonaws.com/123456789012/vigil-timers',
  timerQueueArn: 'arn:aws:sqs:eu-west-1:123456789012:vigil-timers',
  scheduleGroupName: 'vigil-timers',
  schedulerRoleArn: 'arn:aws:iam::123456789012:role/vigil-scheduler',
  schedulerDlqArn: 'arn:aws:sqs:eu-west-1:123456789012:vigil-scheduler-dlq',
};
/** The options every generated SDK exception takes. */
const awsError = (message: string) => ({ $metadata: {}, message, Message: message });

describe('SQS delay for a timer due within 15 minutes', () => {
  it.each([
    [-5_000, 0],
    [0, 0],
    [1, 1],
    [1_000, 1],
    [1_001, 2],
    [899_001, 900],
    [900_000, 900],
    [900_001, 900],
  ])('%i ms before due → DelaySeconds %i', (untilDueMs, delaySeconds) => {
    expect(sqsDelaySecondsFor(untilDueMs)).toBe(delaySeconds);
  });
});

describe('Scheduler one-time expression', () => {
  it('is UTC to the second, without milliseconds or zone suffix', () => {
    expect(atExpression(Date.UTC(2031, 0, 2, 3, 4, 5, 678))).toBe('at(2031-01-02T03:04:05)');
  });
});

describe('schedule names', () => {
  it('are deterministic, per scope and fence token, and valid for any job id and token', () => {
    const jobId = `a:b.c_d-${'z'.repeat(120)}`;
    const job = { scope: 'job', jobId, fenceToken: 1 } as const;
    expect(scheduleNameFor(job)).toBe(scheduleNameFor({ ...job }));
    expect(scheduleNameFor(job)).not.toBe(scheduleNameFor({ ...job, scope: 'gate' }));
    expect(scheduleNameFor(job)).not.toBe(scheduleNameFor({ ...job, fenceToken: 2 }));
    expect(scheduleNameFor({ scope: 'pool', jobId, fenceToken: Number.MAX_SAFE_INTEGER })).toMatch(SCHEDULE_NAME_PATTERN);
  });
});

describe('SQS + Scheduler timers (error paths and exact requests, against a mocked SDK)', () => {
  const sqs = mockClient(SQSClient);
  const scheduler = mockClient(SchedulerClient);
  const timers = createSqsSchedulerTimers({
    sqs: new SQSClient({}),
    scheduler: new SchedulerClient({}),
    clock: { now: () => NOW },
    config,
  });
  const farTimer = { scope: 'job', jobId: 'job-1', fenceToken: 7, dueAt: NOW + 60 * 60_000 } as const;

  beforeEach(() => {
    sqs.reset();
    scheduler.reset();
  });
  // The domain tier shares modules between files: the real clients come back for the next file.
  afterAll(() => {
    sqs.restore();
    scheduler.restore();
  });

  it('sends a near timer with DelaySeconds rounded up to whole seconds', async () => {
    // Act
    await timers.arm({ scope: 'gate', jobId: 'job-1', fenceToken: 7, dueAt: NOW + 61_200 });

    // Assess
    expect(sqs.commandCalls(SendMessageCommand).map((call) => call.args[0].input)).toEqual([
      {
        QueueUrl: config.timerQueueUrl,
        MessageBody: JSON.stringify({ scope: 'gate', jobId: 'job-1', fenceToken: 7, dueAt: NOW + 61_200 }),
        DelaySeconds: 62,
      },
    ]);
    expect(scheduler.calls()).toEqual([]);
  });

  it('updates with the complete create input when the schedule exists', async () => {
    // Prepare
    scheduler.on(CreateScheduleCommand).rejects(new ConflictException(awsError('exists')));

    // Act
    await timers.arm(farTimer);

    // Assess
    const [create] = scheduler.commandCalls(CreateScheduleCommand);
    const [update, ...moreUpdates] = scheduler.commandCalls(UpdateScheduleCommand);
    expect(update?.args[0].input).toEqual(create?.args[0].input);
    expect(moreUpdates).toEqual([]);
  });

  it('creates again when the old schedule fired and deleted itself between Create and Update', async () => {
    // Prepare
    scheduler
      .on(CreateScheduleCommand)
      .rejectsOnce(new ConflictException(awsError('exists')))
      .resolves({ ScheduleArn: 'arn' });
    scheduler.on(UpdateScheduleCommand).rejects(new ResourceNotFoundException(awsError('gone')));

    // Act
    await timers.arm(farTimer);

    // Assess
    expect(scheduler.commandCalls(CreateScheduleCommand)).toHaveLength(2);
    expect(scheduler.commandCalls(UpdateScheduleCommand)).toHaveLength(1);
  });

  // AWS adapters review: Scheduler answers ConflictException to an update or delete racing another
  // change of the same schedule, and the SDK does not retry it; the decision whose state had landed
  // then answered 500.
  const busy = () => new ConflictException(awsError('Updating or deleting the resource can cause an inconsistent state.'));

  it('arm tries an update that raced another change of the schedule again', async () => {
    // Prepare
    scheduler.on(CreateScheduleCommand).rejects(new ConflictException(awsError('exists')));
    scheduler.on(UpdateScheduleCommand).rejectsOnce(busy()).resolves({ ScheduleArn: 'arn' });
    // Act + Assess
    await expect(timers.arm(farTimer)).resolves.toBeUndefined();
    expect(scheduler.commandCalls(UpdateScheduleCommand)).toHaveLength(2);
  });

  it('disarm tries a delete that raced another change of the schedule again, a few times, then gives up', async () => {
    // Prepare
    scheduler.on(DeleteScheduleCommand).rejectsOnce(busy()).resolves({});
    // Act + Assess
    await expect(timers.disarm(farTimer)).resolves.toBeUndefined();
    expect(scheduler.commandCalls(DeleteScheduleCommand)).toHaveLength(2);
    scheduler.reset();
    scheduler.on(DeleteScheduleCommand).rejects(busy());
    await expect(timers.disarm(farTimer)).rejects.toMatchObject({ name: 'ConflictException' });
    expect(scheduler.commandCalls(DeleteScheduleCommand)).toHaveLength(4);
  });

  it('passes any other Scheduler error to the caller', async () => {
    // Prepare
    scheduler.on(CreateScheduleCommand).rejects(new ValidationException(awsError('bad role')));

    // Act + Assess
    await expect(timers.arm(farTimer)).rejects.toMatchObject({ name: 'ValidationException' });
    expect(scheduler.commandCalls(UpdateScheduleCommand)).toEqual([]);
  });

  // Review (AWS limits): DeleteSchedule has a rate quota of its own, and most jobs never had a schedule.
  it('disarm asks Scheduler nothing for a timer never armed past the SQS range, and deletes any other', async () => {
    // Prepare
    scheduler.on(DeleteScheduleCommand).resolves({});
    // Act
    const near = { scope: 'job', jobId: 'near', fenceToken: 1 } as const;
    const far = { scope: 'job', jobId: 'far', fenceToken: 1 } as const;
    const unknown = { scope: 'pool', jobId: 'unknown', fenceToken: 3 } as const;
    await timers.disarm(near, SQS_MAX_DELAY_SECONDS * 1000);
    await timers.disarm(far, SQS_MAX_DELAY_SECONDS * 1000 + 1);
    await timers.disarm(unknown);
    // Assess
    expect(scheduler.commandCalls(DeleteScheduleCommand).map((call) => call.args[0].input.Name)).toEqual([scheduleNameFor(far), scheduleNameFor(unknown)]);
  });

  it("an outbox retry's wake-up, armed by the same Lambda that decided it, is never a schedule", async () => {
    // Act
    await timers.arm({ scope: 'job', jobId: 'job-1', fenceToken: 1, dueAt: NOW + RETRY_CAP_MS });
    // Assess: so a job's `armedAtMostMsAhead` need not count its outbox retries
    expect(sqs.commandCalls(SendMessageCommand)).toHaveLength(1);
    expect(scheduler.calls()).toEqual([]);
  });

  it('disarm ignores a missing schedule but not a throttle', async () => {
    // Prepare
    scheduler
      .on(DeleteScheduleCommand)
      .rejectsOnce(new ResourceNotFoundException(awsError('gone')))
      .rejectsOnce(new ThrottlingException(awsError('slow down')));

    // Act + Assess
    await expect(timers.disarm(farTimer)).resolves.toBeUndefined();
    await expect(timers.disarm(farTimer)).rejects.toMatchObject({ name: 'ThrottlingException' });
    expect(scheduler.commandCalls(DeleteScheduleCommand)[0]?.args[0].input).toEqual({
      Name: scheduleNameFor(farTimer),
      GroupName: config.scheduleGroupName,
    });
  });
});
