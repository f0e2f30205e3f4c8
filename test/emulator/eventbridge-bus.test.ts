import { readdirSync } from 'node:fs';
import { CreateEventBusCommand, EventBridgeClient, PutRuleCommand, PutTargetsCommand } from '@aws-sdk/client-eventbridge';
import { SQSClient, type Message } from '@aws-sdk/client-sqs';
import { describe, expect, it } from 'vitest';
import { z } from 'zod';
import { createEventBridgeBus } from '../../shared/adapters/aws/eventbridge-bus.js';
import { JobProgressReport } from '../../shared/events/job-progress-report.js';
import { createTestQueue, receiveMessages, required, uniqueName, type TestQueue } from '../support/aws-test-resources.js';
import { describeWithEmulator, type EmulatorClientConfig } from '../support/emulator.js';
import { eventSamples } from '../support/event-samples.js';

/** What an EventBridge rule puts on an SQS target: the whole event envelope. */
const envelopeSchema = z.object({ source: z.string(), 'detail-type': z.string(), detail: z.unknown() });
const envelopeOf = (message: Message | undefined) =>
  envelopeSchema.parse(JSON.parse(required(message?.Body, 'no message body')));

/** A bus of its own with one rule (source vigil + these detail types) delivering to a queue of its own. */
async function busToQueue(clientConfig: EmulatorClientConfig, detailTypes: string[]) {
  const events = new EventBridgeClient(clientConfig);
  const sqs = new SQSClient(clientConfig);
  const eventBusName = uniqueName('vigil-bus');
  await events.send(new CreateEventBusCommand({ Name: eventBusName }));
  const queue: TestQueue = await createTestQueue(sqs, 'vigil-bus-target');
  const rule = uniqueName('vigil-rule');
  await events.send(
    new PutRuleCommand({
      Name: rule,
      EventBusName: eventBusName,
      EventPattern: JSON.stringify({ source: ['vigil'], 'detail-type': detailTypes }),
    }),
  );
  await events.send(
    new PutTargetsCommand({ Rule: rule, EventBusName: eventBusName, Targets: [{ Id: 'queue', Arn: queue.arn }] }),
  );
  return { bus: createEventBridgeBus({ client: events, eventBusName }), sqs, queue };
}

describe('event samples', () => {
  it('cover every event module in shared/events/', () => {
    const poolModules = readdirSync(new URL('../../shared/events/pools/', import.meta.url))
      .filter((f) => f !== 'pool-event-fields.ts')
      .map((f) => `pools/${f}`);
    const modules = [
      ...readdirSync(new URL('../../shared/events/', import.meta.url)).filter((f) => f !== 'event-contract.ts' && f !== 'pools'),
      ...poolModules,
    ];
    expect(eventSamples.map((s) => s.module).sort()).toEqual(modules.sort());
  });
});

describeWithEmulator('EventBridge bus → rule → SQS delivers every Vigil event type', (emulator) => {
  it.each(eventSamples.map((sample) => [sample.detailType, sample] as const))(
    '%s arrives with source vigil and a detail its module parses',
    async (detailType, sample) => {
      // Prepare
      const { bus, sqs, queue } = await busToQueue(emulator.clientConfig(), [detailType]);
      const otherTypes = eventSamples.filter((other) => other.detailType !== detailType).map((other) => other.event);

      // Act
      await bus.publish([...otherTypes, sample.event]);

      // Assess
      const [message, ...more] = await receiveMessages(sqs, queue.url, 1);
      const envelope = envelopeOf(message);
      expect(envelope.source).toBe('vigil');
      expect(envelope['detail-type']).toBe(detailType);
      expect(sample.parse(envelope.detail)).toEqual(sample.event.detail);
      expect(more).toEqual([]);
    },
  );

  it('publishes 23 events, more than one PutEvents call accepts, and loses none', async () => {
    // Prepare
    const { bus, sqs, queue } = await busToQueue(emulator.clientConfig(), [JobProgressReport.detailType]);
    const [progress] = eventSamples.filter((s) => s.detailType === JobProgressReport.detailType);
    const reports = Array.from({ length: 23 }, (_, i) => ({
      detailType: JobProgressReport.detailType,
      detail: { ...progress?.event.detail, jobId: `job-${i}` },
    }));

    // Act
    await bus.publish(reports);

    // Assess
    const received = await receiveMessages(sqs, queue.url, 23);
    const jobIds = received.map((m) => JobProgressReport.parse(envelopeOf(m).detail).jobId);
    expect(jobIds.sort()).toEqual(reports.map((r) => r.detail.jobId).sort());
  });
});
