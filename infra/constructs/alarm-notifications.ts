import { RemovalPolicy, Stack } from 'aws-cdk-lib';
import type { Alarm } from 'aws-cdk-lib/aws-cloudwatch';
import { SnsAction } from 'aws-cdk-lib/aws-cloudwatch-actions';
import { PolicyStatement, ServicePrincipal } from 'aws-cdk-lib/aws-iam';
import { Key } from 'aws-cdk-lib/aws-kms';
import { Topic } from 'aws-cdk-lib/aws-sns';
import { EmailSubscription } from 'aws-cdk-lib/aws-sns-subscriptions';
import { Construct } from 'constructs';

export interface AlarmNotificationsProps {
  /** Subscribed to every alarm of the stack (the address confirms once); others subscribe to the topic. */
  readonly email?: string | undefined;
}

/**
 * Where the stack's alarms go: one encrypted topic. CloudWatch cannot publish to a topic under the
 * AWS managed SNS key, so the topic has a key of its own that CloudWatch may use.
 */
export class AlarmNotifications extends Construct {
  public readonly topic: Topic;
  private readonly action: SnsAction;

  constructor(scope: Construct, id: string, props: AlarmNotificationsProps = {}) {
    super(scope, id);
    const key = new Key(this, 'Key', {
      description: 'Vigil alarm notifications: CloudWatch publishes to the encrypted alarm topic',
      enableKeyRotation: true,
      // It protects notifications in flight only; nothing stored needs it after the stack is gone.
      removalPolicy: RemovalPolicy.DESTROY,
    });
    key.grant(new ServicePrincipal('cloudwatch.amazonaws.com'), 'kms:Decrypt', 'kms:GenerateDataKey*');
    this.topic = new Topic(this, 'Topic', { displayName: 'Vigil alarms', masterKey: key, enforceSSL: true });
    // enforceSSL writes the topic's policy, which replaces SNS's default one: without this statement
    // CloudWatch is refused every publish and no alarm notifies anyone.
    const { account, region, partition } = Stack.of(this);
    this.topic.addToResourcePolicy(
      new PolicyStatement({
        sid: 'CloudWatchAlarmsPublish',
        principals: [new ServicePrincipal('cloudwatch.amazonaws.com')],
        actions: ['sns:Publish'],
        resources: [this.topic.topicArn],
        conditions: {
          StringEquals: { 'aws:SourceAccount': account },
          ArnLike: { 'aws:SourceArn': `arn:${partition}:cloudwatch:${region}:${account}:alarm:*` },
        },
      }),
    );
    if (props.email) this.topic.addSubscription(new EmailSubscription(props.email));
    this.action = new SnsAction(this.topic);
  }

  /** Every alarm given notifies the topic when it goes off. */
  notifyOn(...alarms: Alarm[]): void {
    for (const alarm of alarms) alarm.addAlarmAction(this.action);
  }
}
