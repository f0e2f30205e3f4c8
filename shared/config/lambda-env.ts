/**
 * The environment variables the Lambda wiring reads. The CDK stacks set exactly these
 * (test/infra checks that they match).
 */
export const LambdaEnv = {
  /** Region manager's DynamoDB table. */
  jobsTableName: 'JOBS_TABLE_NAME',
  /** Gate's DynamoDB table (gate region only). */
  gateTableName: 'GATE_TABLE_NAME',
  /** This region's Vigil EventBridge bus. */
  eventBusName: 'EVENT_BUS_NAME',
  /** SQS queue that delivers timers (DelaySeconds for timers due within 15 minutes). */
  timerQueueUrl: 'TIMER_QUEUE_URL',
  timerQueueArn: 'TIMER_QUEUE_ARN',
  /** EventBridge Scheduler group, the role it assumes to send to the timer queue, and its DLQ. */
  scheduleGroupName: 'SCHEDULE_GROUP_NAME',
  schedulerRoleArn: 'SCHEDULER_ROLE_ARN',
  schedulerDlqArn: 'SCHEDULER_DLQ_ARN',
  /** Secrets Manager secret holding the HMAC key for workflow tokens (region managers); page cursors are sealed under a key derived from it. */
  tokenSecretArn: 'TOKEN_SECRET_ARN',
  /** Gate: Secrets Manager secret its page cursors' key is derived from (the gate signs no tokens). */
  cursorSecretArn: 'CURSOR_SECRET_ARN',
  /** Policy knobs. */
  defaultStuckThresholdSeconds: 'DEFAULT_STUCK_THRESHOLD_SECONDS',
  gateFallbackSeconds: 'GATE_FALLBACK_SECONDS',
  gateReportIntervalSeconds: 'GATE_REPORT_INTERVAL_SECONDS',
  gateStuckThresholdSeconds: 'GATE_STUCK_THRESHOLD_SECONDS',
  /** Gate: the regions it may submit to (comma-separated) and the name of each region's submit-from-gate function. */
  regions: 'VIGIL_REGIONS',
  submitFromGateFunctionName: 'SUBMIT_FROM_GATE_FUNCTION_NAME',
} as const;
