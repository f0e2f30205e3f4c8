import { GetScheduleCommand, type GetScheduleCommandOutput } from '@aws-sdk/client-scheduler';
import { DeleteMessageCommand, SendMessageCommand, type Message } from '@aws-sdk/client-sqs';
import { expect, it } from 'vitest';
import { z } from 'zod';
import { scheduleNameFor } from '../../shared/adapters/aws/schedule-name.js';
import { parseTimerMessage } from '../../shared/adapters/aws/timer-message.js';
import { fireJobTimer } from '../../shared/app/fire-job-timer.js';
import { submitJob, type SubmitInput } from '../../shared/app/submit-job.js';
import { SWEEP_GRACE_MS, sweepJobTimers } from '../../shared/app/sweep-job-timers.js';
import { takeOverJob } from '../../shared/app/take-over-job.js';
import { toIso } from '../../shared/domain/time.js';
import { JobTimedOut } from '../../shared/events/job-timed-out.js';
import { queueDepth, receiveMessages, required } from '../support/aws-test-resources.js';
import { describeWithEmulator } from '../support/emulator.js';
import { managerOnEmulator, type ManagerFixture } from './manager-fixture.js';

const T0 = Date.UTC(2031, 0, 15, 10, 0, 0, 0);
const SECOND = 1_000;
const MINUTE = 60 * SECOND;

const submission = (jobId: string, timeoutSeconds: number): SubmitInput => ({
  jobId,
  timeoutSeconds,
  // Longer than the timeout, so these jobs end by their deadline, not as stuck.
  stuckThresholdSeconds: 2 * timeoutSeconds,
  workflows: [{ workflowId: 'wf-1', workerId: 'worker-1' }],
});

const getSchedule = (m: ManagerFixture, jobId: string): Promise<GetScheduleCommandOutput> =>
  m.scheduler.send(new GetScheduleCommand({ Name: scheduleNameFor({ scope: 'job', jobId, fenceToken: 1 }), GroupName: m.config.scheduleGroupName }));

/** What the timer queue's consumer Lambda does with one message. */
async function consumeTimerMessage(m: ManagerFixture, message: Message | undefined): Promise<void> {
  const { Body: body, ReceiptHandle: receiptHandle } = required(message, 'no timer message');
  await fireJobTimer(m.deps, parseTimerMessage(required(body, 'timer message without body')));
  await m.sqs.send(new DeleteMessageCommand({ QueueUrl: m.queue.url, ReceiptHandle: receiptHandle }));
}

const envelopeSchema = z.object({ 'detail-type': z.string(), detail: z.unknown() });
async function publishedTimedOut(m: ManagerFixture) {
  const [message] = await receiveMessages(m.sqs, m.busObserver.url, 1);
  const envelope = envelopeSchema.parse(JSON.parse(required(message?.Body, 'no event on the bus')));
  expect(envelope['detail-type']).toBe(JobTimedOut.detailType);
  return JobTimedOut.parse(envelope.detail);
}

describeWithEmulator('a job lifecycle through the use cases on the AWS adapters', (emulator) => {
  it('a far deadline is a schedule; as moto never fires it, the backstop sweep times the job out', async () => {
    // Prepare
    const m = await managerOnEmulator(emulator.clientConfig(), T0);
    await submitJob(m.deps, submission('job:far', 3_600));
    const schedule = await getSchedule(m, 'job:far');
    expect(schedule.ScheduleExpression).toBe('at(2031-01-15T10:57:00)');
    expect(parseTimerMessage(required(schedule.Target?.Input, 'no Input'))).toEqual({
      scope: 'job',
      jobId: 'job:far',
      fenceToken: 1,
      dueAt: T0 + 60 * MINUTE,
    });

    // Act
    m.clock.set(T0 + 60 * MINUTE + SWEEP_GRACE_MS);
    const firstSweep = await sweepJobTimers(m.deps);

    // Assess
    expect(firstSweep).toEqual({ fired: 1 });
    const job = required(await m.store.getJob('job:far'), 'job vanished');
    expect(job).toMatchObject({ status: 'TIMED_OUT', tracking: { timeoutReason: 'timeout', fenceToken: 1 } });
    expect(job.timerDueAt).toBeUndefined();
    await expect(getSchedule(m, 'job:far')).rejects.toMatchObject({ name: 'ResourceNotFoundException' });
    expect(await publishedTimedOut(m)).toMatchObject({
      jobId: 'job:far',
      reason: 'timeout',
      startedAt: toIso(T0),
      timedOutAt: toIso(T0 + 60 * MINUTE + SWEEP_GRACE_MS),
      fenceToken: 1,
    });
    expect(await sweepJobTimers(m.deps)).toEqual({ fired: 0 });
  });

  it("the schedule's early message makes the consumer re-arm on the SQS delay path", async () => {
    // Prepare
    const m = await managerOnEmulator(emulator.clientConfig(), T0);
    await submitJob(m.deps, submission('job:hop', 3_600));
    const input = required((await getSchedule(m, 'job:hop')).Target?.Input, 'no Input');

    // Act: at 10:57 Scheduler puts its Input on the timer queue; the consumer takes it
    m.clock.set(T0 + 57 * MINUTE);
    await m.sqs.send(new SendMessageCommand({ QueueUrl: m.queue.url, MessageBody: input }));
    const [early] = await receiveMessages(m.sqs, m.queue.url, 1);
    await consumeTimerMessage(m, early);

    // Assess: still running, and the rest of the wait is a delayed SQS message
    expect((await m.store.getJob('job:hop'))?.status).toBe('RUNNING');
    expect(await queueDepth(m.sqs, m.queue.url)).toEqual({ visible: 0, delayed: 1 });
  });

  it('a near deadline goes through the SQS delay to the consumer, which times the job out', async () => {
    // Prepare: SQS delays run on the emulator's real clock, so this test's clock is real time too; a
    // 5 s deadline leaves a loaded machine time to see the message still delayed
    const m = await managerOnEmulator(emulator.clientConfig(), Date.now());
    await submitJob(m.deps, submission('job:near', 5));
    expect(await queueDepth(m.sqs, m.queue.url)).toEqual({ visible: 0, delayed: 1 });

    // Act
    const [timer] = await receiveMessages(m.sqs, m.queue.url, 1, 15_000);
    m.clock.set(Date.now());
    await consumeTimerMessage(m, timer);

    // Assess
    expect((await m.store.getJob('job:near'))?.status).toBe('TIMED_OUT');
    expect(await publishedTimedOut(m)).toMatchObject({ jobId: 'job:near', reason: 'timeout', fenceToken: 1 });
  });

  it('after a takeover, a wake-up with the old fence token changes nothing; the new one decides', async () => {
    // Prepare
    const m = await managerOnEmulator(emulator.clientConfig(), T0);
    await submitJob(m.deps, submission('job:fence', 600));
    m.clock.set(T0 + MINUTE);
    expect(await takeOverJob(m.deps, 'job:fence')).toEqual({ jobId: 'job:fence', fenceToken: 2 });
    m.clock.set(T0 + 10 * MINUTE + SECOND);

    // Act
    await fireJobTimer(m.deps, { scope: 'job', jobId: 'job:fence', fenceToken: 1, dueAt: T0 + 10 * MINUTE });

    // Assess
    expect(await m.store.getJob('job:fence')).toMatchObject({ status: 'RUNNING', tracking: { fenceToken: 2 } });

    // Act
    await fireJobTimer(m.deps, { scope: 'job', jobId: 'job:fence', fenceToken: 2, dueAt: T0 + 10 * MINUTE });

    // Assess
    expect(await m.store.getJob('job:fence')).toMatchObject({ status: 'TIMED_OUT', tracking: { fenceToken: 2 } });
    expect(await publishedTimedOut(m)).toMatchObject({ jobId: 'job:fence', fenceToken: 2, startedAt: toIso(T0) });
  });
});
