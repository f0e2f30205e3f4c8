import type { Context, SQSEvent, SQSRecord } from 'aws-lambda';
import { describe, expect, it } from 'vitest';
import { timerMessageBody } from '../../../shared/adapters/aws/timer-message.js';
import { timerQueueHandler } from '../../../shared/http/timer-queue-handler.js';
import type { TimerRequest } from '../../../shared/ports/timers.js';

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
