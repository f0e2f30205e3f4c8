import { ArnFormat, type Stack } from 'aws-cdk-lib';

/**
 * Fixed names for everything another region refers to. Stacks in different regions cannot
 * exchange references, so each side builds the other's ARN from these names instead of looking
 * it up; the account is the deploying one in every stack.
 */
export const PhysicalNames = {
  regionBus: 'vigil-bus',
  gateBus: 'vigil-gate-bus',
  submitFromGateFunction: 'vigil-submit-from-gate',
  regionScheduleGroup: 'vigil-timers',
  gateScheduleGroup: 'vigil-gate-timers',
} as const;

export const regionStackName = (region: string) => `Vigil-${region}`;
export const GATE_STACK_NAME = 'Vigil-gate';

export const eventBusArnIn = (stack: Stack, region: string, busName: string): string =>
  stack.formatArn({ service: 'events', region, resource: 'event-bus', resourceName: busName });

export const functionArnIn = (stack: Stack, region: string, functionName: string): string =>
  stack.formatArn({
    service: 'lambda',
    region,
    resource: 'function',
    resourceName: functionName,
    arnFormat: ArnFormat.COLON_RESOURCE_NAME,
  });
