import type { Stack } from 'aws-cdk-lib';
import { beforeAll, describe, expect, it } from 'vitest';
import type { VigilFunction } from '../../infra/constructs/vigil-function.js';
import { synthesizeVigil, type SynthesizedVigil } from './support/vigil-app.js';
import { logicalId, resourceOf, resourcesOfType } from './support/template-queries.js';

/** Each stack's deadline enforcers: the function its timer queue wakes, and its one-minute sweep. */
function enforcersOf(vigil: SynthesizedVigil): { stack: Stack; timerConsumer: VigilFunction; sweep: VigilFunction }[] {
  return [
    ...vigil.regional.map((stack) => ({ stack, timerConsumer: stack.functions.FireJobTimer, sweep: stack.functions.SweepJobTimers })),
    { stack: vigil.gate, timerConsumer: vigil.gate.functions.FireGateTimer, sweep: vigil.gate.functions.SweepGateTimers },
  ];
}

const reservationOf = (vigil: SynthesizedVigil, stack: Stack, fn: VigilFunction): unknown =>
  resourceOf(vigil.template(stack), fn.handler).Properties?.['ReservedConcurrentExecutions'];

/** The SQS event source that invokes `fn`: its batch size and scaling (maximum concurrency). */
function eventSourceOf(vigil: SynthesizedVigil, stack: Stack, fn: VigilFunction): Record<string, unknown> {
  const mappings = Object.values(resourcesOfType(vigil.template(stack), 'AWS::Lambda::EventSourceMapping'))
    .map((mapping) => mapping.Properties ?? {})
    .filter((properties) => JSON.stringify(properties['FunctionName']) === JSON.stringify({ Ref: logicalId(fn.handler) }));
  expect(mappings, `${stack.stackName}: event sources of ${fn.node.id}`).toHaveLength(1);
  return mappings[0] as Record<string, unknown>;
}

let byDefault: SynthesizedVigil;

beforeAll(() => {
  byDefault = synthesizeVigil();
});

// A throttled batch of the timer queue counts a receive (the DLQ takes a wake-up after five), and a throttled sweep is that minute's sweep gone: when other workloads
// use up the account's concurrency, neither may be left without any.
describe('the timer consumer and the sweep keep concurrency of their own', () => {
  it('by default each stack reserves 10 for its timer consumer and 1 for its sweep, and no other function reserves any', () => {
    for (const { stack, timerConsumer, sweep } of enforcersOf(byDefault)) {
      expect(reservationOf(byDefault, stack, timerConsumer), stack.stackName).toBe(10);
      expect(reservationOf(byDefault, stack, sweep), stack.stackName).toBe(1);
      // The README's account sums: what each stack takes from the region's unreserved pool.
      const reserved = Object.values(resourcesOfType(byDefault.template(stack), 'AWS::Lambda::Function'))
        .map((fn) => fn.Properties?.['ReservedConcurrentExecutions'])
        .filter((count) => count !== undefined);
      expect(reserved.sort(), stack.stackName).toEqual([1, 10]);
    }
  });

  it('the timer queue never invokes its consumer more often at once than it has reserved, so a busy account leaves wake-ups in the queue instead of throttling them toward the DLQ', () => {
    for (const { stack, timerConsumer } of enforcersOf(byDefault)) {
      const eventSource = eventSourceOf(byDefault, stack, timerConsumer);
      expect(eventSource['BatchSize'], stack.stackName).toBe(10);
      expect(eventSource['ScalingConfig'], stack.stackName).toEqual({ MaximumConcurrency: 10 });
    }
  });

  it('context timerConsumerConcurrency and sweepConcurrency set both reservations, the event source following the consumer’s', () => {
    const tuned = synthesizeVigil({ context: { timerConsumerConcurrency: '25', sweepConcurrency: '0' } });
    for (const { stack, timerConsumer, sweep } of enforcersOf(tuned)) {
      expect(reservationOf(tuned, stack, timerConsumer), stack.stackName).toBe(25);
      expect(eventSourceOf(tuned, stack, timerConsumer)['ScalingConfig'], stack.stackName).toEqual({ MaximumConcurrency: 25 });
      expect(reservationOf(tuned, stack, sweep), stack.stackName).toBeUndefined();
    }
  });

  it('0 reserves nothing for an account with no concurrency to spare, and leaves the event source uncapped', () => {
    const unreserved = synthesizeVigil({ context: { timerConsumerConcurrency: 0, sweepConcurrency: 0 } });
    for (const { stack, timerConsumer, sweep } of enforcersOf(unreserved)) {
      expect(reservationOf(unreserved, stack, timerConsumer), stack.stackName).toBeUndefined();
      expect(reservationOf(unreserved, stack, sweep), stack.stackName).toBeUndefined();
      expect(eventSourceOf(unreserved, stack, timerConsumer), stack.stackName).not.toHaveProperty('ScalingConfig');
    }
  });
});
