import type { Template } from 'aws-cdk-lib/assertions';
import { describe, expect, it } from 'vitest';
import { resourcesOfType } from './support/template-queries.js';
import { synthesizeVigil } from './support/vigil-app.js';

const templatesOf = (context: Record<string, unknown> = {}): [string, Template][] => {
  const vigil = synthesizeVigil({ context });
  return [...vigil.regional, vigil.gate].map((stack) => [stack.stackName, vigil.template(stack)]);
};

const refOf = (value: unknown) => JSON.stringify(value);

describe('alarms reach someone', () => {
  it('every alarm of every stack notifies the stack’s own topic, which is encrypted with a key CloudWatch may use', () => {
    for (const [stackName, template] of templatesOf()) {
      const topics = Object.entries(resourcesOfType(template, 'AWS::SNS::Topic'));
      expect(topics.length, stackName).toBe(1);
      const [topicId, topic] = topics[0] ?? [];
      const alarms = Object.values(resourcesOfType(template, 'AWS::CloudWatch::Alarm'));
      expect(alarms.length, stackName).toBeGreaterThan(5);
      for (const alarm of alarms) expect(refOf(alarm.Properties?.['AlarmActions']), stackName).toBe(refOf([{ Ref: topicId }]));
      const keyId = (topic?.Properties?.['KmsMasterKeyId'] as { 'Fn::GetAtt'?: [string, string] } | undefined)?.['Fn::GetAtt']?.[0];
      const key = keyId ? resourcesOfType(template, 'AWS::KMS::Key')[keyId] : undefined;
      expect(key?.Properties?.['EnableKeyRotation'], stackName).toBe(true);
      const keyPolicy = JSON.stringify(key?.Properties?.['KeyPolicy']);
      expect(keyPolicy, stackName).toContain('cloudwatch.amazonaws.com');
      expect(keyPolicy, stackName).toContain('kms:GenerateDataKey*');
    }
  });

  it('-c alarmEmail subscribes that address to every stack’s alarm topic; without it none is subscribed', () => {
    for (const [stackName, template] of templatesOf({ alarmEmail: 'oncall@example.com' })) {
      const subscriptions = Object.values(resourcesOfType(template, 'AWS::SNS::Subscription')).map((s) => s.Properties);
      expect(subscriptions, stackName).toEqual([expect.objectContaining({ Protocol: 'email', Endpoint: 'oncall@example.com' })]);
    }
    for (const [stackName, template] of templatesOf()) expect(Object.keys(resourcesOfType(template, 'AWS::SNS::Subscription')), stackName).toEqual([]);
  });

  it('every stack alarms on the first decided event the bus will never carry: refused for good, or dropped from a full outbox', () => {
    for (const [stackName, template] of templatesOf()) {
      const alarmed = Object.values(resourcesOfType(template, 'AWS::CloudWatch::Alarm'))
        .map((alarm) => alarm.Properties ?? {})
        .filter((p) => p['Namespace'] === 'Vigil' && p['Threshold'] === 1)
        .map((p) => `${String(p['MetricName'])} ${JSON.stringify(p['Dimensions'])}`);
      expect(alarmed, stackName).toEqual(
        expect.arrayContaining(['EventsRefused', 'OutboxEventsDropped', 'SweepDueLeft'].map((name) => `${name} ${JSON.stringify([{ Name: 'service', Value: 'vigil' }])}`)),
      );
    }
  });
});
