/**
 * A review finding: no alarm could ever notify anyone. `AlarmNotifications` creates the alarm topic
 * with `enforceSSL: true`, which CDK implements as an `AWS::SNS::TopicPolicy` whose only statement is
 * the TLS Deny; a TopicPolicy replaces the topic's whole access policy, SNS's default statement (which
 * lets same-account services such as CloudWatch publish) included, and `SnsAction` adds none. Every
 * alarm action then failed at run time ("not authorized to perform: SNS:Publish"), visible only in the
 * alarm's history. The topic's policy now lets CloudWatch alarms of this account and region publish
 * (with AWS's documented confused-deputy conditions).
 */
import { beforeAll, describe, expect, it } from 'vitest';
import { arnText, resourcesOfType, type PolicyStatement } from './support/template-queries.js';
import { synthesizeVigil, type SynthesizedVigil } from './support/vigil-app.js';

let vigil: SynthesizedVigil;
beforeAll(() => {
  vigil = synthesizeVigil();
});

const asList = (value: unknown): unknown[] => (Array.isArray(value) ? value : [value]);

/** The statements of the topic policy attached to the stack's (single) alarm topic. */
function alarmTopicStatements(stack: SynthesizedVigil['gate'] | SynthesizedVigil['regional'][number]): PolicyStatement[] {
  const template = vigil.template(stack);
  const topicIds = Object.keys(resourcesOfType(template, 'AWS::SNS::Topic'));
  expect(topicIds.length, stack.stackName).toBe(1);
  const policies = Object.values(resourcesOfType(template, 'AWS::SNS::TopicPolicy')).filter((policy) =>
    asList(policy.Properties?.['Topics']).some((topic) => JSON.stringify(topic) === JSON.stringify({ Ref: topicIds[0] })),
  );
  // A TopicPolicy exists (enforceSSL): it is the topic's whole access policy.
  expect(policies.length, stack.stackName).toBeGreaterThan(0);
  return policies.flatMap((policy) => (policy.Properties?.['PolicyDocument'] as { Statement: PolicyStatement[] }).Statement);
}

const allowsCloudWatchPublish = (statement: PolicyStatement): boolean =>
  statement.Effect === 'Allow' &&
  JSON.stringify(statement.Principal).includes('cloudwatch.amazonaws.com') &&
  asList(statement.Action).some((action) => String(action).toLowerCase() === 'sns:publish');

describe('CloudWatch may publish alarm notifications to the alarm topic', () => {
  it('every stack’s alarm topic policy allows cloudwatch.amazonaws.com sns:Publish (the TLS-only TopicPolicy replaced the SNS default policy)', () => {
    const missing: string[] = [];
    for (const stack of [...vigil.regional, vigil.gate]) {
      if (!alarmTopicStatements(stack).some(allowsCloudWatchPublish)) missing.push(stack.stackName);
    }
    expect(missing, 'stacks whose alarm topic CloudWatch cannot publish to').toEqual([]);
  });

  it('that Allow is limited to this account’s alarms (aws:SourceAccount and an alarm aws:SourceArn): no confused deputy', () => {
    for (const stack of [...vigil.regional, vigil.gate]) {
      const allow = alarmTopicStatements(stack).find(allowsCloudWatchPublish);
      expect(allow, `${stack.stackName}: no Allow for CloudWatch at all`).toBeDefined();
      const condition = JSON.stringify(allow?.Condition ?? {});
      expect(condition, stack.stackName).toContain('aws:SourceAccount');
      expect(arnText((allow?.Condition as Record<string, Record<string, unknown>> | undefined)?.['ArnLike']?.['aws:SourceArn']), stack.stackName).toMatch(
        /:cloudwatch:[a-z0-9-]+:.*:alarm:\*$/,
      );
    }
  });
});
