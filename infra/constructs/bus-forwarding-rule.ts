import { EventBus, Rule, type EventPattern, type IEventBus } from 'aws-cdk-lib/aws-events';
import { EventBus as EventBusTarget } from 'aws-cdk-lib/aws-events-targets';
import { Stack } from 'aws-cdk-lib';
import { ServicePrincipal, type IPrincipal, type IRole } from 'aws-cdk-lib/aws-iam';
import type { IQueue } from 'aws-cdk-lib/aws-sqs';
import { Construct } from 'constructs';

export interface BusForwardingRuleProps {
  readonly sourceBus: IEventBus;
  readonly eventPattern: EventPattern;
  /** ARN of the bus in the other region, built from its fixed name (no lookup across regions). */
  readonly targetBusArn: string;
  /** Assumed by EventBridge to put events on the target bus; this construct grants it that. */
  readonly role: IRole;
  /** Events EventBridge could not deliver after its retries (24 h) land here. */
  readonly deadLetterQueue: IQueue;
  readonly description: string;
}

/** Forwards matching events from a bus to a bus in another region (EventBridge cross-region bus target). */
export class BusForwardingRule extends Construct {
  public readonly rule: Rule;

  constructor(scope: Construct, id: string, props: BusForwardingRuleProps) {
    super(scope, id);
    this.rule = new Rule(this, 'Rule', {
      eventBus: props.sourceBus,
      eventPattern: props.eventPattern,
      description: props.description,
    });
    this.rule.addTarget(
      new EventBusTarget(EventBus.fromEventBusArn(this, 'TargetBus', props.targetBusArn), {
        role: props.role,
        deadLetterQueue: props.deadLetterQueue,
      }),
    );
  }
}

/**
 * EventBridge as the principal of a forwarding role, limited to rules on `sourceBusName` in this
 * account (confused-deputy guard). Matched by name, not by the rule's ARN: the rule names the role,
 * so the role naming the rule would be a cycle.
 */
export function forwardingRulesOf(scope: Construct, sourceBusName: string): IPrincipal {
  const stack = Stack.of(scope);
  return new ServicePrincipal('events.amazonaws.com').withConditions({
    StringEquals: { 'aws:SourceAccount': stack.account },
    ArnLike: { 'aws:SourceArn': stack.formatArn({ service: 'events', resource: 'rule', resourceName: `${sourceBusName}/*` }) },
  });
}
