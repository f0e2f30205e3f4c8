/**
 * A review finding (least privilege): roles carried SQS and Secrets Manager actions no code path uses.
 * The only SQS call of the handlers is SendMessage (sqs-scheduler-timers.ts, and Lambda's on-failure
 * destination), the only Secrets Manager call GetSecretValue (lambda-manager.ts), but CDK's
 * `grantSendMessages` adds GetQueueUrl and GetQueueAttributes and `grantRead` adds DescribeSecret.
 * The grants now name exactly the calls made; a queue a function consumes keeps CDK's event-source
 * grant.
 */
import type { Stack } from 'aws-cdk-lib';
import { beforeAll, describe, expect, it } from 'vitest';
import { actionsOf, arnText, logicalId, resourcesOf, resourcesOfType, statementsOfRole } from './support/template-queries.js';
import { functionsOf, synthesizeVigil, type SynthesizedVigil } from './support/vigil-app.js';

let vigil: SynthesizedVigil;
beforeAll(() => {
  vigil = synthesizeVigil({ context: { workerFunctionUrl: 'true' } });
});

/** Queue ARNs (as text) a function consumes through an event source mapping. */
function consumedQueues(stack: Stack, handlerLogicalId: string): string[] {
  return Object.values(resourcesOfType(vigil.template(stack), 'AWS::Lambda::EventSourceMapping'))
    .filter((mapping) => JSON.stringify(mapping.Properties?.['FunctionName']) === JSON.stringify({ Ref: handlerLogicalId }))
    .map((mapping) => arnText(mapping.Properties?.['EventSourceArn']));
}

describe('no metadata actions the handlers never call', () => {
  it('no function may call sqs:GetQueueUrl, sqs:GetQueueAttributes (but on a queue it consumes) or secretsmanager:DescribeSecret', () => {
    const unused: string[] = [];
    for (const stack of [...vigil.regional, vigil.gate]) {
      for (const [name, fn] of Object.entries(functionsOf(stack))) {
        const consumed = consumedQueues(stack, logicalId(fn.handler));
        for (const statement of statementsOfRole(vigil.template(stack), logicalId(fn.role))) {
          if (statement.Effect !== 'Allow') continue;
          for (const action of actionsOf(statement)) {
            for (const resource of resourcesOf(statement).map(arnText)) {
              // A queue a function consumes keeps CDK's event-source grant (its poller reads the queue's attributes).
              const needed = consumed.includes(resource) || !['sqs:GetQueueAttributes', 'sqs:GetQueueUrl', 'secretsmanager:DescribeSecret'].includes(action);
              if (!needed) unused.push(`${stack.stackName}/${name}: ${action} ${resource}`);
            }
          }
        }
      }
    }
    expect(unused).toEqual([]);
  });
});
