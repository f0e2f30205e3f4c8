import { EventBridgeClient, PutEventsCommand } from '@aws-sdk/client-eventbridge';
import { mockClient } from 'aws-sdk-client-mock';
import { afterAll, beforeEach, describe, expect, it } from 'vitest';
import { createEventBridgeBus, EventPublishError } from '../../../../shared/adapters/aws/eventbridge-bus.js';
import type { BusEvent } from '../../../../shared/ports/event-bus.js';

const events = (count: number): BusEvent[] =>
  Array.from({ length: count }, (_, i) => ({ detailType: 'JobProgressReport', detail: { jobId: `job-${i}` } }));
const jobIdsOf = (entries: Array<{ Detail?: string }> | undefined): unknown[] =>
  (entries ?? []).map((entry) => (JSON.parse(entry.Detail ?? '{}') as { jobId?: unknown }).jobId);

describe('EventBridge bus (FailedEntryCount handling and chunking, against a mocked SDK)', () => {
  const eventBridge = mockClient(EventBridgeClient);
  const bus = createEventBridgeBus({ client: new EventBridgeClient({}), eventBusName: 'vigil-bus', retryBaseDelayMs: 1 });

  beforeEach(() => eventBridge.reset());
  // The domain tier shares modules between files: the real client comes back for the next file.
  afterAll(() => eventBridge.restore());

  it('sends at most 10 entries per call, each with source vigil on the configured bus', async () => {
    // Prepare
    eventBridge.on(PutEventsCommand).callsFake(({ Entries = [] }) => ({
      FailedEntryCount: 0,
      Entries: Entries.map((_: unknown, i: number) => ({ EventId: `id-${i}` })),
    }));

    // Act
    await bus.publish(events(25));

    // Assess
    const calls = eventBridge.commandCalls(PutEventsCommand).map((call) => call.args[0].input.Entries ?? []);
    expect(calls.map((entries) => entries.length)).toEqual([10, 10, 5]);
    expect(calls.flat()[0]).toEqual({
      EventBusName: 'vigil-bus',
      Source: 'vigil',
      DetailType: 'JobProgressReport',
      Detail: '{"jobId":"job-0"}',
    });
  });

  it('retries only the entries EventBridge failed, until they go out', async () => {
    // Prepare
    eventBridge
      .on(PutEventsCommand)
      .resolvesOnce({
        FailedEntryCount: 2,
        Entries: [
          { EventId: 'a' },
          { ErrorCode: 'ThrottlingException', ErrorMessage: 'Rate exceeded' },
          { EventId: 'c' },
          { ErrorCode: 'InternalFailure', ErrorMessage: 'oops' },
        ],
      })
      .resolvesOnce({ FailedEntryCount: 1, Entries: [{ EventId: 'b' }, { ErrorCode: 'InternalFailure' }] })
      .resolves({ FailedEntryCount: 0, Entries: [{ EventId: 'd' }] });

    // Act
    await bus.publish(events(4));

    // Assess
    const calls = eventBridge.commandCalls(PutEventsCommand).map((call) => jobIdsOf(call.args[0].input.Entries));
    expect(calls).toEqual([['job-0', 'job-1', 'job-2', 'job-3'], ['job-1', 'job-3'], ['job-3']]);
  });

  it('throws a clear error naming the failures when entries keep failing', async () => {
    // Prepare
    eventBridge.on(PutEventsCommand).callsFake(({ Entries = [] }) => ({
      FailedEntryCount: Entries.length,
      Entries: Entries.map(() => ({ ErrorCode: 'ThrottlingException', ErrorMessage: 'Rate exceeded' })),
    }));

    // Act
    const publishing = bus.publish(events(2));

    // Assess
    await expect(publishing).rejects.toBeInstanceOf(EventPublishError);
    await expect(publishing).rejects.toThrow(
      "EventBridge rejected 2 event(s) on bus 'vigil-bus' after 4 attempts (ThrottlingException: Rate exceeded)",
    );
    expect(eventBridge.commandCalls(PutEventsCommand)).toHaveLength(4);
  });
});
