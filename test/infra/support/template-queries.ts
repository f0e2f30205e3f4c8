import { CfnElement, Stack } from 'aws-cdk-lib';
import type { Template } from 'aws-cdk-lib/assertions';
import type { IConstruct } from 'constructs';
import type { VigilFunction } from '../../../infra/constructs/vigil-function.js';

export interface PolicyStatement {
  Effect: string;
  Action: string | string[];
  Resource: unknown;
  Condition?: unknown;
  Principal?: unknown;
}

interface CfnResourceJson {
  Type: string;
  Properties?: Record<string, unknown>;
  DeletionPolicy?: string;
}

/** The logical id CloudFormation knows a construct (or its default child) by. */
export function logicalId(construct: IConstruct): string {
  const element = construct instanceof CfnElement ? construct : construct.node.defaultChild;
  if (!(element instanceof CfnElement)) throw new Error(`${construct.node.path} has no CloudFormation resource`);
  return Stack.of(element).getLogicalId(element);
}

export function resourceOf(template: Template, construct: IConstruct): CfnResourceJson {
  const resource = (template.toJSON()['Resources'] as Record<string, CfnResourceJson>)[logicalId(construct)];
  if (!resource) throw new Error(`no resource for ${construct.node.path}`);
  return resource;
}

export function resourcesOfType(template: Template, type: string): Record<string, CfnResourceJson> {
  return template.findResources(type) as Record<string, CfnResourceJson>;
}

/** Each HTTP API route by its route key, with its authorization type: `{ 'POST /jobs': 'AWS_IAM', … }`. */
export function routeAuthorizations(template: Template): Record<string, unknown> {
  const routes = Object.values(resourcesOfType(template, 'AWS::ApiGatewayV2::Route')).map((route) => [
    route.Properties?.['RouteKey'],
    route.Properties?.['AuthorizationType'],
  ]);
  return Object.fromEntries(routes) as Record<string, unknown>;
}

export function environmentOf(template: Template, fn: VigilFunction): Record<string, unknown> {
  const environment = resourceOf(template, fn.handler).Properties?.['Environment'] as { Variables?: Record<string, unknown> } | undefined;
  return environment?.Variables ?? {};
}

/** Every Allow/Deny statement of the inline policies attached to a role (by logical id). */
export function statementsOfRole(template: Template, roleLogicalId: string): PolicyStatement[] {
  return Object.values(resourcesOfType(template, 'AWS::IAM::Policy'))
    .filter((policy) => (policy.Properties?.['Roles'] as unknown[]).some((role) => JSON.stringify(role) === JSON.stringify({ Ref: roleLogicalId })))
    .flatMap((policy) => (policy.Properties?.['PolicyDocument'] as { Statement: PolicyStatement[] }).Statement);
}

export const actionsOf = (statement: PolicyStatement): string[] =>
  Array.isArray(statement.Action) ? statement.Action : [statement.Action];

export const resourcesOf = (statement: PolicyStatement): unknown[] =>
  Array.isArray(statement.Resource) ? statement.Resource : [statement.Resource];

/** Flattens `Fn::Join`/`Ref`/`GetAtt` into readable text, e.g. `arn:<AWS::Partition>:events:us-east-1:…`. */
export function arnText(value: unknown): string {
  if (typeof value === 'string') return value;
  if (value !== null && typeof value === 'object') {
    const node = value as Record<string, unknown>;
    const join = node['Fn::Join'] as [string, unknown[]] | undefined;
    if (join) return join[1].map(arnText).join(join[0]);
    if ('Ref' in node) return `<${String(node['Ref'])}>`;
    const getAtt = node['Fn::GetAtt'] as [string, string] | undefined;
    if (getAtt) return `<${getAtt[0]}.${getAtt[1]}>`;
  }
  return JSON.stringify(value);
}
