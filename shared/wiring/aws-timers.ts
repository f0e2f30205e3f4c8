import { createSqsSchedulerTimers } from '../adapters/aws/sqs-scheduler-timers.js';
import { LambdaEnv } from '../config/lambda-env.js';
import { requiredEnv } from '../config/read-env.js';
import { systemClock } from '../ports/clock.js';
import { awsClients } from './aws-clients.js';

export const awsTimersFromEnv = () =>
  createSqsSchedulerTimers({
    sqs: awsClients.sqs,
    scheduler: awsClients.scheduler,
    clock: systemClock,
    config: {
      timerQueueUrl: requiredEnv(LambdaEnv.timerQueueUrl),
      timerQueueArn: requiredEnv(LambdaEnv.timerQueueArn),
      scheduleGroupName: requiredEnv(LambdaEnv.scheduleGroupName),
      schedulerRoleArn: requiredEnv(LambdaEnv.schedulerRoleArn),
      schedulerDlqArn: requiredEnv(LambdaEnv.schedulerDlqArn),
    },
  });
