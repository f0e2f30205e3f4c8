import { Duration } from 'aws-cdk-lib';
import { Rule, Schedule } from 'aws-cdk-lib/aws-events';
import { LambdaFunction } from 'aws-cdk-lib/aws-events-targets';
import { Construct } from 'constructs';
import type { VigilFunction } from './vigil-function.js';

/**
 * Runs the sweep every minute (ARCHITECTURE "Timers": a lost schedule cannot leak a job). A failed
 * run is not retried: the next minute's run covers the same overdue timers.
 */
export class BackstopSweep extends Construct {
  public readonly rule: Rule;

  constructor(scope: Construct, id: string, sweep: VigilFunction) {
    super(scope, id);
    sweep.handler.configureAsyncInvoke({ retryAttempts: 0, maxEventAge: Duration.minutes(1) });
    this.rule = new Rule(this, 'EveryMinute', {
      description: 'Vigil backstop sweep over the sparse timer index',
      schedule: Schedule.rate(Duration.minutes(1)),
      targets: [new LambdaFunction(sweep.handler, { retryAttempts: 0, maxEventAge: Duration.minutes(1) })],
    });
  }
}
