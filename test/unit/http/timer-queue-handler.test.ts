import type { Context, SQSEvent, SQSRecord } from 'aws-lambda';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { timerMessageBody } from '../../../shared/adapters/aws/timer-message.js';
import { timerQueueHandler } from '../../../shared/http/timer-queue-handler.js';
import type { TimerRequest } from '../../../shared/ports/timers.js';
import { WAKE_UP_LATENESS_METRIC } from '../../../shared/telemetry/wake-up-lateness.js';
import { printedBy } from '../../support/printed-to-stdout.js';

const context = { functionName: 'fire-job-timer', awsRequestId: 'request-1' } as Context;

const record = (messageId: string, body: string, awsRegion = 'us-east-1'): SQSRecord => ({ messageId, body, awsRegion }) as SQSRecord;
const wakeUp = (messageId: string, jobId: string, fenceToken: number): SQSRecord =>
  record(messageId, timerMessageBody({ scope: 'job', jobId, fenceToken, dueAt: 1_900_000_000_000 }));
const batch = (...records: SQSRecord[]): SQSEvent => ({ Records: records });

/** A promise settled from outside, and a deadline after which waiting on it counts as a failure. */
function signal() {
  let fire!: () => void;
  const fired = new Promise<void>((resolve) => (fire = resolve));
  const within = (ms: number, what: string) =>
    Promise.race([fired, new Promise<never>((_, reject) => setTimeout(() => reject(new Error(`${what} never happened`)), ms).unref())]);
  return { fire, within };
}

describe('the timer queue consumer', () => {
  it('runs the wake-ups of different jobs side by side: the first waits for the second to start', async () => {
    const secondStarted = signal();
    const handler = timerQueueHandler(async (timer) => {
      if (timer.jobId === 'job-b') secondStarted.fire();
      else await secondStarted.within(5_000, "job-b's wake-up starting while job-a's was running");
    });
    const answer = await handler(batch(wakeUp('m1', 'job-a', 1), wakeUp('m2', 'job-b', 1)), context);
    expect(answer.batchItemFailures).toEqual([]);
  });

  it("runs one job's wake-ups one at a time, in batch order, while other jobs run beside them", async () => {
    const otherStarted = signal();
    const log: string[] = [];
    let inFlightForJobA = 0;
    let mostInFlightForJobA = 0;
    const handler = timerQueueHandler(async (timer: TimerRequest) => {
      log.push(`${timer.jobId}#${timer.fenceToken} start`);
      if (timer.jobId === 'job-b') return otherStarted.fire();
      mostInFlightForJobA = Math.max(mostInFlightForJobA, ++inFlightForJobA);
      if (timer.fenceToken === 1) await otherStarted.within(5_000, "job-b's wake-up starting");
      await Promise.resolve();
      inFlightForJobA--;
      log.push(`${timer.jobId}#${timer.fenceToken} end`);
    });
    const answer = await handler(batch(wakeUp('m1', 'job-a', 1), wakeUp('m2', 'job-a', 2), wakeUp('m3', 'job-b', 1)), context);
    expect(answer.batchItemFailures).toEqual([]);
    expect(mostInFlightForJobA).toBe(1);
    expect(log.filter((line) => line.startsWith('job-a'))).toEqual(['job-a#1 start', 'job-a#1 end', 'job-a#2 start', 'job-a#2 end']);
    expect(log.indexOf('job-b#1 start')).toBeLessThan(log.indexOf('job-a#1 end'));
  });

  it('treats the same job id in two regions or two scopes as different timers', async () => {
    const started: string[] = [];
    const bothStarted = signal();
    const handler = timerQueueHandler(async (timer, region) => {
      started.push(`${region} ${timer.scope}`);
      if (started.length === 3) bothStarted.fire();
      await bothStarted.within(5_000, 'all three wake-ups running at once');
    });
    const gateWakeUp = record('m3', timerMessageBody({ scope: 'gate', jobId: 'job-a', fenceToken: 1, dueAt: 1 }));
    const answer = await handler(batch(wakeUp('m1', 'job-a', 1), record('m2', wakeUp('x', 'job-a', 1).body, 'eu-west-1'), gateWakeUp), context);
    expect(answer.batchItemFailures).toEqual([]);
    expect(started.sort()).toEqual(['eu-west-1 job', 'us-east-1 gate', 'us-east-1 job']);
  });

  it('reports a failed wake-up and an unreadable body alone, and still runs the rest, including the failed job’s later wake-ups', async () => {
    const fired: string[] = [];
    const handler = timerQueueHandler(async (timer) => {
      fired.push(`${timer.jobId}#${timer.fenceToken}`);
      if (timer.jobId === 'job-a' && timer.fenceToken === 1) throw new Error('store unavailable');
    });
    const answer = await handler(batch(wakeUp('m1', 'job-a', 1), record('m2', '{"scope":"job"'), wakeUp('m3', 'job-a', 2), wakeUp('m4', 'job-b', 1)), context);
    expect(answer.batchItemFailures.map((failure) => failure.itemIdentifier).sort()).toEqual(['m1', 'm2']);
    expect(fired.sort()).toEqual(['job-a#1', 'job-a#2', 'job-b#1']);
  });
});

describe('the timer queue consumer measures how late the queue delivers', () => {
  afterEach(() => vi.unstubAllEnvs());

  const NOW = 1_900_000_000_000;
  const clock = { now: () => NOW };
  /** A wake-up as SQS hands it over: when it was sent, and how often it has been received. */
  const delivered = (messageId: string, jobId: string, timing: { dueAt: number; sentAt: number; receives?: number }): SQSRecord =>
    ({
      ...record(messageId, timerMessageBody({ scope: 'job', jobId, fenceToken: 1, dueAt: timing.dueAt })),
      attributes: { SentTimestamp: String(timing.sentAt), ApproximateReceiveCount: String(timing.receives ?? 1) },
    }) as SQSRecord;
  const latenessPrinted = (printed: string) =>
    printed
      .split('\n')
      .filter((line) => line.includes(WAKE_UP_LATENESS_METRIC))
      .map((line) => JSON.parse(line) as Record<string, unknown>);

  it("prints the batch's latest first delivery past its due time, by consumer: a past deadline counts from its send, an early hop and a redelivery not at all", async () => {
    // Prepare
    vi.stubEnv('POWERTOOLS_METRICS_DISABLED', 'false');
    const handler = timerQueueHandler(async () => {}, clock);
    const wakeUps = batch(
      // Sent with a 15-minute delay, due 70 s ago: the queue held it 70 s too long.
      delivered('m1', 'job-a', { dueAt: NOW - 70_000, sentAt: NOW - 970_000 }),
      // Armed for a deadline already 8 minutes past (a retired grant), sent 3 s ago.
      delivered('m2', 'job-b', { dueAt: NOW - 480_000, sentAt: NOW - 3_000 }),
      // A schedule's hop, 3 minutes early.
      delivered('m3', 'job-c', { dueAt: NOW + 180_000, sentAt: NOW - 1_000 }),
      // Back after a failed run: it waited out the visibility timeout.
      delivered('m4', 'job-d', { dueAt: NOW - 900_000, sentAt: NOW - 900_000, receives: 2 }),
    );
    // Act
    const printed = await printedBy(() => handler(wakeUps, context));
    // Assess
    expect(latenessPrinted(printed)).toEqual([
      expect.objectContaining({
        [WAKE_UP_LATENESS_METRIC]: 70_000,
        function_name: 'fire-job-timer',
        _aws: expect.objectContaining({
          CloudWatchMetrics: [{ Namespace: 'Vigil', Dimensions: [['service', 'function_name']], Metrics: [{ Name: WAKE_UP_LATENESS_METRIC, Unit: 'Milliseconds' }] }],
        }),
      }),
    ]);
  });

  it('an early hop alone is 0 late; a batch of redeliveries prints no lateness, nor does any batch with metrics off (the local cloud)', async () => {
    vi.stubEnv('POWERTOOLS_METRICS_DISABLED', 'false');
    const handler = timerQueueHandler(async () => {}, clock);
    const early = batch(delivered('m0', 'job-a', { dueAt: NOW + 180_000, sentAt: NOW - 1_000 }));
    expect(latenessPrinted(await printedBy(() => handler(early, context)))).toEqual([expect.objectContaining({ [WAKE_UP_LATENESS_METRIC]: 0 })]);
    const redelivered = batch(delivered('m1', 'job-a', { dueAt: NOW - 200_000, sentAt: NOW - 200_000, receives: 3 }));
    expect(latenessPrinted(await printedBy(() => handler(redelivered, context)))).toEqual([]);
    vi.stubEnv('POWERTOOLS_METRICS_DISABLED', 'true');
    const late = batch(delivered('m2', 'job-b', { dueAt: NOW - 200_000, sentAt: NOW - 200_000 }));
    expect(latenessPrinted(await printedBy(() => handler(late, context)))).toEqual([]);
  });
});
