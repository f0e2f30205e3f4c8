import { expect, it } from 'vitest';
import { parseTimerMessage } from '../../shared/adapters/aws/timer-message.js';
import type { TimerRequest } from '../../shared/ports/timers.js';
import { queueDepth, receiveMessages, receiveNow, required } from '../support/aws-test-resources.js';
import { describeWithEmulator } from '../support/emulator.js';
import { timerFixture } from './timer-test-setup.js';

describeWithEmulator('timers due within 15 minutes go to the SQS timer queue with DelaySeconds', (emulator) => {
  it('a timer due in 4.5 s is held back for 5 s, then arrives with the timer as its body', async () => {
    // Prepare: the delay runs on the emulator's real clock; 5 s leaves a loaded machine time to look
    // at the queue before the message shows (the emulator tier shares two cores with the CPU-bound ones).
    const now = Date.now();
    const { timers, sqs, queue } = await timerFixture(emulator.clientConfig(), now);
    const timer: TimerRequest = { scope: 'job', jobId: 'job:delay-1', fenceToken: 3, dueAt: now + 4_500 };

    // Act
    await timers.arm(timer);

    // Assess
    expect(await queueDepth(sqs, queue.url)).toEqual({ visible: 0, delayed: 1 });
    expect(await receiveNow(sqs, queue.url)).toEqual([]);
    const [message] = await receiveMessages(sqs, queue.url, 1, 15_000);
    const delivered = required(message, 'no message');
    expect(parseTimerMessage(required(delivered.Body, 'no body'))).toEqual(timer);
    const sentAt = Number(delivered.Attributes?.SentTimestamp);
    const firstReceivedAt = Number(delivered.Attributes?.ApproximateFirstReceiveTimestamp);
    expect(firstReceivedAt - sentAt).toBeGreaterThanOrEqual(5_000);
  });

  it('an overdue timer is delivered at once', async () => {
    // Prepare
    const now = Date.now();
    const { timers, sqs, queue } = await timerFixture(emulator.clientConfig(), now);
    const timer: TimerRequest = { scope: 'gate', jobId: 'job-overdue', fenceToken: 0, dueAt: now - 60_000 };

    // Act
    await timers.arm(timer);

    // Assess
    expect(await queueDepth(sqs, queue.url)).toEqual({ visible: 1, delayed: 0 });
    const [message] = await receiveNow(sqs, queue.url);
    expect(parseTimerMessage(required(message?.Body, 'no message'))).toEqual(timer);
  });

  it('a timer due in exactly 15 minutes uses the longest SQS delay, not a schedule', async () => {
    // Prepare
    const now = Date.now();
    const { timers, sqs, queue } = await timerFixture(emulator.clientConfig(), now);

    // Act
    await timers.arm({ scope: 'job', jobId: 'job-15min', fenceToken: 1, dueAt: now + 15 * 60_000 });

    // Assess: accepted (SQS refuses DelaySeconds above 900) and held back
    expect(await queueDepth(sqs, queue.url)).toEqual({ visible: 0, delayed: 1 });
    expect(await receiveNow(sqs, queue.url)).toEqual([]);
  });
});
