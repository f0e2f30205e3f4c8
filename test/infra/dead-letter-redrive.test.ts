import { readFileSync } from 'node:fs';
import type { Queue } from 'aws-cdk-lib/aws-sqs';
import { beforeAll, describe, expect, it } from 'vitest';
import { synthesizeVigil, type SynthesizedVigil } from './support/vigil-app.js';
import { logicalId, resourcesOfType } from './support/template-queries.js';

// Events review: the README told operators to redrive every dead-letter queue with
// `aws sqs start-message-move-task`. SQS moves messages only out of a queue that is the DLQ of another
// SQS queue; five of the six are fed by EventBridge, Lambda or Scheduler, where the call fails.

let vigil: SynthesizedVigil;

beforeAll(() => {
  vigil = synthesizeVigil();
});

/** The DLQs each stack alarms on, by the label of their `<Label>DepthAlarm`. */
function deadLetterQueuesOf(v: SynthesizedVigil) {
  return [
    ...v.regional.map((stack) => ({
      stack,
      queues: { TimerQueue: stack.timers.queueDlq, Scheduler: stack.timers.schedulerDlq, GateDecisions: stack.gateDecisionDlq, ForwardToGate: stack.forwardToGateDlq },
    })),
    {
      stack: v.gate,
      queues: { TimerQueue: v.gate.timers.queueDlq, Scheduler: v.gate.timers.schedulerDlq, ManagerReports: v.gate.managerReportDlq, ForwardDecisions: v.gate.forwardDecisionsDlq },
    },
  ];
}

/** The README's redrive advice per DLQ label: the rows of its dead-letter queue table. */
function documentedRedrive(): Map<string, string> {
  const readme = readFileSync('README.md', 'utf8');
  const rows = readme.split('\n').filter((line) => /^\s*\| `\w+` \| /.test(line) && line.includes('DLQ'));
  return new Map(rows.map((row) => [/`(\w+)`/.exec(row)?.[1] ?? '', row]));
}

describe('dead-letter queues: the documented redrive is one AWS performs', () => {
  it('start-message-move-task is advised exactly for the DLQs of SQS queues, and every alarmed DLQ has advice', () => {
    const advice = documentedRedrive();
    const wrong: string[] = [];
    for (const { stack, queues } of deadLetterQueuesOf(vigil)) {
      const sqsQueues = Object.values(resourcesOfType(vigil.template(stack), 'AWS::SQS::Queue'));
      const isRedriveTarget = (dlq: Queue) =>
        sqsQueues.some((q) => JSON.stringify((q.Properties?.['RedrivePolicy'] as { deadLetterTargetArn?: unknown } | undefined)?.deadLetterTargetArn) === JSON.stringify({ 'Fn::GetAtt': [logicalId(dlq), 'Arn'] }));
      for (const [label, dlq] of Object.entries(queues)) {
        const row = advice.get(label);
        if (row === undefined) {
          wrong.push(`${stack.stackName}/${label}: no redrive advice in the README`);
          continue;
        }
        if (isRedriveTarget(dlq) !== row.includes('start-message-move-task')) {
          wrong.push(`${stack.stackName}/${label}: ${isRedriveTarget(dlq) ? 'the DLQ of an SQS queue' : 'fed by a service, not an SQS queue'}, README says: ${row.trim()}`);
        }
      }
    }
    expect(wrong).toEqual([]);
  });
});
