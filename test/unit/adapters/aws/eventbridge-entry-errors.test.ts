import { EventBridgeClient, PutEventsCommand } from '@aws-sdk/client-eventbridge';
import { mockClient } from 'aws-sdk-client-mock';
import { afterAll, beforeEach, describe, expect, it } from 'vitest';
import { createEventBridgeBus, EventPublishError } from '../../../../shared/adapters/aws/eventbridge-bus.js';
import type { BusEvent } from '../../../../shared/ports/event-bus.js';

const events = (count: number): BusEvent[] =>
  Array.from({ length: count }, (_, i) => ({ detailType: 'JobLeaderTransfer', detail: { jobId: `job-${i}` } }));
const jobIdsOf = (entries: Array<{ Detail?: string }> | undefined): unknown[] =>
  (entries ?? []).map((entry) => (JSON.parse(entry.Detail ?? '{}') as { jobId?: unknown }).jobId);

/**
 * PutEventsResultEntry.ErrorCode — "Retryable errors include:
 * InternalFailure, ThrottlingException. Non-retryable errors include: AccessDeniedException,
 * InvalidAccountIdException, InvalidArgument, MalformedDetail, RedactionFailure,
 * NotAuthorizedForSourceException, NotAuthorizedForDetailTypeException" (EventBridge API reference).
 */
describe('EventBridge per-entry error codes (mocked SDK)', () => {
  const eventBridge = mockClient(EventBridgeClient);
  const bus = createEventBridgeBus({ client: new EventBridgeClient({ region: 'eu-west-1' }), eventBusName: 'vigil-bus', retryBaseDelayMs: 1 });

  beforeEach(() => eventBridge.reset());
  // The domain tier shares modules between files: the real client comes back for the next file.
  afterAll(() => eventBridge.restore());

  it.each(['AccessDeniedException', 'NotAuthorizedForDetailTypeException'])(
    'an entry rejected with the non-retryable %s is not sent again, and the publish names it refused',
    async (code) => {
      // Prepare: EventBridge rejects the one entry, for good
      eventBridge.on(PutEventsCommand).callsFake(({ Entries = [] }) => ({
        FailedEntryCount: Entries.length,
        Entries: Entries.map(() => ({ ErrorCode: code, ErrorMessage: 'rejected' })),
      }));
      // Act
      const failure = await bus.publish(events(1)).then(() => undefined, (error: unknown) => error);
      // Assess: AWS documents the code as non-retryable; a second identical request cannot succeed
      expect(eventBridge.commandCalls(PutEventsCommand)).toHaveLength(1);
      expect(failure).toBeInstanceOf(EventPublishError);
      expect(failure).toMatchObject({ unsent: [], refused: [{ event: events(1)[0], reason: `${code}: rejected` }] });
    },
  );

  it('a chunk whose entry is refused does not keep the next chunks from going out', async () => {
    // Prepare: the first entry is refused for good, every other entry is accepted
    eventBridge.on(PutEventsCommand).callsFake(({ Entries = [] }) => {
      const results = Entries.map((entry: { Detail?: string }) =>
        JSON.parse(entry.Detail ?? '{}').jobId === 'job-0' ? { ErrorCode: 'AccessDeniedException', ErrorMessage: 'no' } : { EventId: 'ok' },
      );
      return { FailedEntryCount: results.filter((r: { ErrorCode?: string }) => r.ErrorCode).length, Entries: results };
    });
    // Act
    await bus.publish(events(25)).catch(() => undefined);
    // Assess: the 15 events of the second and third chunks were offered to EventBridge, once each, and job-0 once
    const sent = eventBridge.commandCalls(PutEventsCommand).flatMap((call) => jobIdsOf(call.args[0].input.Entries));
    expect(sent.sort()).toEqual(events(25).map((event) => event.detail['jobId']).sort());
  });
});
