import { Validations, type Stack } from 'aws-cdk-lib';
import type { IConstruct } from 'constructs';

/**
 * cdk-nag v3 checks run as a CDK validation plugin; a finding is accepted only by acknowledging
 * its exact id on the construct or an ancestor. Every acknowledgement says why.
 */
export function acknowledgeNag(scope: IConstruct, rule: string, reason: string): void {
  Validations.of(scope).acknowledge({ id: `AwsSolutions-${rule}`, reason });
}

/** Acknowledges one wildcard resource of an IAM5 finding, spelled the way cdk-nag spells it. */
export function acknowledgeWildcardResource(scope: IConstruct, stack: Stack, resource: string, reason: string): void {
  acknowledgeNag(scope, `IAM5[Resource::${flattenReference(stack.resolve(resource))}]`, reason);
}

// Mirrors cdk-nag's flattenCfnReference: GetAtt/Ref become <Id.Attr>/<Id>, joins are concatenated.
function flattenReference(value: unknown): string {
  if (typeof value === 'string') return value.replace(/\$\{/g, '<').replace(/\}/g, '>');
  if (value !== null && typeof value === 'object') {
    const node = value as Record<string, unknown>;
    const join = node['Fn::Join'];
    if (Array.isArray(join)) {
      const [delimiter, items] = join as [string, unknown[]];
      return items.map(flattenReference).join(delimiter);
    }
    const getAtt = node['Fn::GetAtt'];
    if (Array.isArray(getAtt)) return `<${flattenReference(getAtt[0])}.${flattenReference(getAtt[1])}>`;
    if ('Ref' in node) return `<${flattenReference(node['Ref'])}>`;
  }
  return JSON.stringify(value);
}
